package store

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// conn is a SQLite connection used through the library's C API directly, without
// database/sql: one goroutine owns it, so it is opened without SQLite's mutexes,
// and rows are bound value by value into multi-row INSERT statements.
type conn struct {
	tls *libc.TLS
	db  uintptr
}

// ptr turns an address in C memory (allocated by libc, never by Go) into a pointer.
func ptr(p uintptr) unsafe.Pointer { return unsafe.Add(nil, p) }

func openConn(path string) (*conn, error) {
	return openConnFlags(path, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE)
}

func openConnFlags(path string, flags int32) (*conn, error) {
	c := &conn{tls: libc.NewTLS()}
	cpath, err := libc.CString(path)
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, cpath)
	pdb := libc.Xmalloc(c.tls, 8)
	if pdb == 0 {
		c.tls.Close()
		return nil, errors.New("sqlite: out of memory")
	}
	defer libc.Xfree(c.tls, pdb)
	rc := sqlite3.Xsqlite3_open_v2(c.tls, cpath, pdb, flags|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = *(*uintptr)(ptr(pdb))
	if rc != sqlite3.SQLITE_OK {
		err := c.errorf(rc, "open %s", path)
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *conn) errorf(rc int32, format string, args ...any) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	if c.db != 0 {
		if m := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)); m != "" && m != msg {
			msg += ": " + m
		}
	}
	return fmt.Errorf("sqlite: %s: %s", fmt.Sprintf(format, args...), msg)
}

func (c *conn) close() {
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
}

// exec runs one or more SQL statements that return no rows.
func (c *conn) exec(sql string) error {
	csql, err := libc.CString(sql)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, csql)
	if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, csql, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return c.errorf(rc, "exec %.60q", sql)
	}
	return nil
}

// stmt is a prepared statement.
type stmt struct {
	c *conn
	p uintptr
	// bound is the int, double or NULL value bound to each parameter (index
	// i-1 for parameter i). Bindings survive sqlite3_reset, and inserted rows
	// repeat many values (NULL and constant columns, the same thread), so
	// binding the value a parameter already holds is skipped.
	bound []boundValue
}

type boundValue struct {
	kind byte // boundNull, boundInt, boundDouble, or 0 (other: text)
	bits int64
}

const (
	boundNull = iota + 1
	boundInt
	boundDouble
)

func (c *conn) prepare(sql string) (*stmt, error) {
	csql, err := libc.CString(sql)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, csql)
	pp := libc.Xmalloc(c.tls, 8)
	if pp == 0 {
		return nil, errors.New("sqlite: out of memory")
	}
	defer libc.Xfree(c.tls, pp)
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, csql, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.errorf(rc, "prepare %.60q", sql)
	}
	s := &stmt{c: c, p: *(*uintptr)(ptr(pp))}
	s.bound = make([]boundValue, sqlite3.Xsqlite3_bind_parameter_count(c.tls, s.p))
	for i := range s.bound {
		s.bound[i].kind = boundNull // parameters start out NULL
	}
	return s, nil
}

func (s *stmt) bindInt(i int, v int64) {
	if b := &s.bound[i-1]; b.kind != boundInt || b.bits != v {
		*b = boundValue{boundInt, v}
		sqlite3.Xsqlite3_bind_int64(s.c.tls, s.p, int32(i), v)
	}
}

func (s *stmt) bindDouble(i int, v float64) {
	bits := int64(math.Float64bits(v))
	if b := &s.bound[i-1]; b.kind != boundDouble || b.bits != bits {
		*b = boundValue{boundDouble, bits}
		sqlite3.Xsqlite3_bind_double(s.c.tls, s.p, int32(i), v)
	}
}

func (s *stmt) bindNull(i int) {
	if b := &s.bound[i-1]; b.kind != boundNull {
		*b = boundValue{kind: boundNull}
		sqlite3.Xsqlite3_bind_null(s.c.tls, s.p, int32(i))
	}
}

// bindText binds n bytes at C address p; they must stay unchanged until the
// statement has been stepped (SQLITE_STATIC).
func (s *stmt) bindText(i int, p uintptr, n int) {
	s.bound[i-1] = boundValue{}
	sqlite3.Xsqlite3_bind_text(s.c.tls, s.p, int32(i), p, int32(n), 0)
}

// run steps the statement to completion and resets it.
func (s *stmt) run() error {
	rc := sqlite3.Xsqlite3_step(s.c.tls, s.p)
	sqlite3.Xsqlite3_reset(s.c.tls, s.p)
	if rc != sqlite3.SQLITE_DONE && rc != sqlite3.SQLITE_ROW {
		return s.c.errorf(rc, "step")
	}
	return nil
}

func (s *stmt) finalize() {
	if s.p != 0 {
		sqlite3.Xsqlite3_finalize(s.c.tls, s.p)
		s.p = 0
	}
}

// arena is C memory for the text values of one statement execution.
type arena struct {
	tls  *libc.TLS
	base uintptr
	size int
	used int
}

// reset empties the arena and makes room for n bytes of text.
func (a *arena) reset(n int) error {
	a.used = 0
	if n <= a.size && a.base != 0 {
		return nil
	}
	size := max(n, 2*a.size, 1<<16)
	p := libc.Xmalloc(a.tls, uint64(size))
	if p == 0 {
		return fmt.Errorf("sqlite: out of memory for %d bytes of text", n)
	}
	if a.base != 0 {
		libc.Xfree(a.tls, a.base)
	}
	a.base, a.size = p, size
	return nil
}

// put copies s into the arena, which reset has sized, and returns its address
// (never 0, so that an empty string binds as an empty text and not as NULL).
func (a *arena) put(s string) uintptr {
	p := a.base + uintptr(a.used)
	if len(s) > 0 {
		copy(unsafe.Slice((*byte)(ptr(p)), len(s)), s)
	}
	a.used += len(s)
	return p
}

func (a *arena) free() {
	if a.base != 0 {
		libc.Xfree(a.tls, a.base)
		a.base, a.size = 0, 0
	}
}
