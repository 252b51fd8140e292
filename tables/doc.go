// Package tables holds a named row type and a typed writer for every table
// tracestreamer fills, generated from package schema (go generate): a writer
// appends whole rows whose columns the compiler checks by name and type, so a
// forgotten or misplaced value cannot shift the columns after it.
//
// Dict (dict.go) is the run's data_dict, written through its generated
// writer.
//
// It must not know SQL or any input format; tables_gen.go is regenerated,
// never edited.
package tables

//go:generate go run ../internal/cmd/gentables -o tables_gen.go
