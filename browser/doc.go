// Package browser tests report.html, the review pack and the trace viewer
// in a real browser: headless Chromium driven by chromedp over a fresh run
// of the default protocol (few trials) and over pages made of adversarial
// strings. It has no code of its own. The test skips, saying why, only
// where no Chromium can be found (BATON_CHROMIUM names one elsewhere than
// on PATH); with BATON_BROWSER_REQUIRED set (as .ci/run sets it) it fails
// instead. BATON_SCREENSHOTS names a folder to keep its screenshots in
// (make test-browser).
package browser
