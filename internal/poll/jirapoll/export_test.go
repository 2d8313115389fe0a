package jirapoll

// Assign exposes assign to the package's external tests.
var Assign = assign
