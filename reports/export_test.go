package reports

// MissingFromHTML is missingFromHTML for the tests of package reports_test.
var MissingFromHTML = missingFromHTML
