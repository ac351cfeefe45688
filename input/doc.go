// Package input is baton's one strict reader of user input files, and its
// one located error type.
//
// A [Decoder] reads a YAML file (a protocol, a mutant catalogue, a
// contract, a scenario file) into typed Go structs: unknown and duplicate
// keys, values of the wrong kind, non-finite numbers (.nan, .inf), invalid
// UTF-8, binary data, a second document and files past their [Limits] are
// problems, each an [*Error] naming file, line, column and field path, with
// the valid choices and a "did you mean" where there are any. Checks made
// after decoding name a field path ([Decoder.Errorf], [Decoder.OneOf],
// [Decoder.Strings]) and keep the place it was written. [JSON] checks JSON
// text as strictly (a hand-off message to check). At most
// [DefaultMaxErrors] problems are kept, and the rest counted ([List]); a
// long value is never echoed whole ([Quote]).
//
// Adding a key to a file format is adding a struct field, and, when it
// needs one, a validation line. See the package example for a new mission's
// file format.
package input
