// Package extsort puts records of bytes into processing order by Key: in
// memory up to a budget, beyond it as sorted runs in temporary files merged at
// the end, so that a trace larger than memory can be sorted.
//
// Records are opaque bytes: it must not decode them, nor know events, tables
// or stat rows.
package extsort
