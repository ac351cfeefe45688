package reports

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// sourceHash is the Content-Security-Policy source that admits an inline
// style or script of exactly this text.
func sourceHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// maxLanes is how many agent lanes the trace viewer's style sheet lays
// out; agents beyond share the last.
const maxLanes = 12

// laneCSS places the viewer's lanes: .nN has N lanes after the time
// column, .cI sits in lane I.
func laneCSS() string {
	var b strings.Builder
	for n := 1; n <= maxLanes; n++ {
		fmt.Fprintf(&b, ".lanes.n%d{grid-template-columns:4.5rem repeat(%d,minmax(12rem,1fr))}", n, n)
		fmt.Fprintf(&b, ".lanes .c%d{grid-column:%d}", n, n+1)
	}
	return b.String()
}

// pageCSS is the one style sheet of report.html and of a replayed trace
// page; the policy admits it by its hash, so no element carries a style
// attribute.
var pageCSS = baseCSS + heatCSS() + laneCSS()

const baseCSS = `
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0;color:#222;line-height:1.4}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:20}
.layout{display:grid;grid-template-columns:16rem minmax(0,1fr);gap:2rem;max-width:96rem;margin:0 auto;padding:0 1rem}
nav.toc{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:1rem 0;font-size:.88rem;border-right:1px solid #ddd}
nav.toc ol{list-style:none;margin:0;padding-left:.8rem}nav.toc>ol{padding-left:0}
nav.toc a{color:#1a4d8f;text-decoration:none;display:block;padding:.1rem 0}nav.toc a:hover{text-decoration:underline}
.toc-h{font-weight:bold;margin:0 0 .4rem}
main{min-width:0;padding-bottom:4rem}
@media (max-width:60rem){.layout{display:block}nav.toc{position:static;max-height:none;border:0}}
h1{margin-top:1rem}
section{scroll-margin-top:1rem}
.tw{overflow-x:auto;margin:.5rem 0 1.2rem}
table{border-collapse:collapse;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
thead th{background:#f2f2f2;position:sticky;top:0}
td a,th a{color:inherit}
td.k-number,td.k-rate{white-space:nowrap}
button.sort{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer;text-align:left}
button.sort::after{content:" \2195";color:#999}
th[aria-sort=ascending] button.sort::after{content:" \2191";color:#222}
th[aria-sort=descending] button.sort::after{content:" \2193";color:#222}
.scale{font-size:.8rem;margin:.2rem 0}.scale span{display:inline-block;min-width:2.2rem;text-align:center;padding:0 .2rem}
.valid{background:#e6f4ea;padding:.5rem 1rem;border-left:4px solid #1e8e3e}
.discarded{background:#fce8e6;padding:.5rem 1rem;border-left:4px solid #d93025}
.note{background:#fef7e0;padding:.5rem 1rem;border-left:4px solid #b06000}
.confirmed{color:#1e8e3e}.refuted{color:#d93025}.inconclusive{color:#b06000}
figure.chart{margin:1rem 0}figure.chart svg{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:#555}
svg .t{font-size:13px;font-weight:bold}svg .p{font-size:9.5px}
details{margin:.5rem 0}summary{cursor:pointer}
code{font-size:.85em;background:#f4f4f4;padding:0 .2em;word-break:break-all}
pre{background:#f6f6f6;padding:.4rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:.78rem;margin:.2rem 0}
.viewer{display:none}
.viewer:target,.standalone .viewer{display:block}
.viewer:target{position:fixed;inset:0;z-index:10;background:rgba(30,30,30,.5);overflow:auto;padding:1.5rem}
.vbox{background:#fff;max-width:120rem;margin:0 auto;padding:.8rem 1.2rem 2rem;border-radius:6px}
.vhead{display:flex;gap:1rem;align-items:baseline;justify-content:space-between;flex-wrap:wrap}
.vhead h2,.vhead h3{margin:.3rem 0}
a.close{font-weight:bold;text-decoration:none;border:1px solid #888;border-radius:4px;padding:.1rem .6rem;color:#222}
.lanes{display:grid;gap:3px 8px;align-items:start;overflow-x:auto;margin:.4rem 0 1rem}
.lane-h{font-weight:bold;border-bottom:2px solid #666;position:sticky;top:0;background:#fff}
.tm{grid-column:1;font-family:monospace;font-size:.75rem;color:#555;padding-top:.25rem}
.ev{border:1px solid #ccc;border-left:5px solid #999;border-radius:3px;padding:.15rem .4rem;font-size:.82rem;background:#fff;min-width:0;overflow-wrap:anywhere}
.ev.k-model_call{border-left-color:#999}.ev.k-tool_call{border-left-color:#0072b2}
.ev.k-handoff_sent,.ev.k-handoff_received{border-left-color:#009e73}.ev.k-handoff_dropped{border-left-color:#e69f00}
.ev.k-escalation,.ev.k-exception{border-left-color:#cc79a7}.ev.k-result{border-left-color:#56b4e9}
.ev.fault{background:#fce8e6;border-left-color:#d93025}
.ev.d-changed,.ev.d-added{box-shadow:inset 0 0 0 2px #e69f00}
.ev.flagged{outline:3px solid #d93025;outline-offset:1px}
.badge{display:inline-block;font-size:.72rem;border-radius:3px;padding:0 .3rem;margin-right:.3rem;background:#eee}
.badge.fault,.badge.finding{background:#d93025;color:#fff}.badge.retry{background:#b06000;color:#fff}
.badge.diff{background:#e69f00;color:#000}
.sp{display:grid;grid-template-columns:1fr 1fr;gap:.4rem}
.fd{font-size:.8rem;margin:.2rem 0}.fd td,.fd th{padding:.05rem .3rem}
.findings li{margin:.2rem 0}
tr.d-changed td,tr.d-added td,tr.d-removed td{background:#fff8e6}
@media print{.viewer{display:block;position:static;background:none}nav.toc{display:none}.layout{display:block}}
`

// pageJS is the one script of report.html: it sorts tables by a column
// (numbers and rates by their data-v value, empty cells last), closes an
// open trace viewer with Escape, and offers each embedded trace as a JSON
// Lines download. The page reads the same without it.
const pageJS = `
(function () {
  "use strict";
  function key(c) {
    var v = c && c.getAttribute("data-v");
    return v === null || v === undefined ? null : parseFloat(v);
  }
  function sortBy(t, i, th) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = t.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[i], y = b.cells[i], kx = key(x), ky = key(y), c;
      if (kx !== null && ky !== null) { c = kx - ky; }
      else if (kx !== null) { return -1; }
      else if (ky !== null) { return 1; }
      else { c = (x ? x.textContent : "").localeCompare(y ? y.textContent : ""); }
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (t) {
    if (!t.tHead || !t.tBodies.length) { return; }
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "sort";
      b.textContent = th.textContent;
      b.title = "sort by this column";
      th.textContent = "";
      th.appendChild(b);
      b.addEventListener("click", function () { sortBy(t, i, th); });
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape" || location.hash.indexOf("#trace-") !== 0) { return; }
    var v = document.getElementById(location.hash.slice(1));
    var c = v && v.querySelector("a.close");
    if (c) { location.hash = c.getAttribute("href"); }
  });
  document.querySelectorAll("script.raw-trace").forEach(function (s) {
    var host = document.getElementById(s.getAttribute("data-for"));
    if (!host) { return; }
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = "download this trace (.jsonl)";
    b.addEventListener("click", function () {
      var events = JSON.parse(s.textContent);
      var text = events.map(function (e) { return JSON.stringify(e); }).join("\n") + "\n";
      var a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([text], {type: "application/x-ndjson"}));
      a.download = s.getAttribute("data-name");
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
    host.appendChild(b);
  });
})();
`
