package experiment

import (
	"database/sql"
	"strconv"
	"strings"
)

// The writer's inserts bind few parameters: binding one costs the sqlite
// driver far more than the arithmetic of the statement that reads it (a
// lock taken and released per value, and database/sql's conversion), so
// the integer columns of a row are packed, several to an int64 parameter,
// and the INSERT unpacks them with shifts and masks. The stored values are
// the same integers. A chunk of rows with a value that does not fit its
// bits (negative, or too wide) is bound one value to a parameter instead.

// packedColumn is a column of a packed INSERT.
type packedColumn struct {
	name string
	// bits is how many bits the column's values (0 to 2^bits-1) take in
	// their parameter; 0 binds the column alone, whatever its value.
	bits  int
	null  bool // -1 stands for NULL (stored packed as 0, values as v+1)
	other bool // a text or blob (or NULL), bound alone as given
}

// packing is the layout of a table's packed rows: which parameter of a row,
// and from which bit, holds each column.
type packing struct {
	table  string
	cols   []packedColumn
	param  []int // each column's parameter, from 0 within a row
	shift  []int
	params int // parameters per row
}

// wordBits are the bits of a parameter that packing uses: an int64 kept
// non-negative, which SQLite's >> shifts as an unsigned number.
const wordBits = 63

func newPacking(table string, cols []packedColumn) *packing {
	p := &packing{table: table, cols: cols}
	used := wordBits // bits used of the current parameter
	for _, c := range cols {
		if c.bits == 0 || c.other || used+c.bits > wordBits {
			p.params++
			used = 0
		}
		p.param = append(p.param, p.params-1)
		p.shift = append(p.shift, used)
		used += c.bits
		if c.bits == 0 || c.other {
			used = wordBits
		}
	}
	if p.params > maxPackedParams {
		panic("packing " + table + ": too many parameters a row")
	}
	return p
}

// maxPackedParams bounds a packed row's parameters (appendPacked's words).
const maxPackedParams = 16

// columns lists the columns, comma-separated.
func (p *packing) columns() string {
	names := make([]string, len(p.cols))
	for i, c := range p.cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// plainSQL is the INSERT of n rows that binds each value alone.
func (p *packing) plainSQL(n int) string {
	return insertSQL(p.table, p.columns(), len(p.cols), n)
}

// packedSQL is the INSERT of n rows bound packed. Its parameters are
// anonymous, each a column of a VALUES row that the SELECT unpacks:
// binding a numbered parameter (?7) costs the driver a search of the
// statement's parameter names, which a chunk of rows makes long.
func (p *packing) packedSQL(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + p.table + "(" + p.columns() + ") SELECT ")
	for i, c := range p.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		v := "column" + strconv.Itoa(p.param[i]+1)
		if c.bits > 0 && !c.other {
			if p.shift[i] > 0 {
				v = "(" + v + " >> " + strconv.Itoa(p.shift[i]) + ")"
			}
			if last := i+1 == len(p.cols) || p.param[i+1] != p.param[i]; !last {
				v = "(" + v + " & " + strconv.FormatInt(1<<c.bits-1, 10) + ")"
			}
			if c.null {
				v = "(nullif(" + v + ", 0) - 1)"
			}
		}
		b.WriteString(v)
	}
	one := "(" + strings.Repeat("?, ", p.params-1) + "?)"
	b.WriteString(" FROM (VALUES " + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ") + ")")
	return b.String()
}

// appendPacked appends a row's parameters, packed, to args: ints holds the
// row's integer columns in order (an other column's entry unused), others
// its other columns' values in order. It reports false, appending nothing, when a value
// does not fit its bits.
func (p *packing) appendPacked(args []any, ints []int64, others []any) ([]any, bool) {
	var words [maxPackedParams]int64
	w := words[:p.params]
	t := 0
	for i, c := range p.cols {
		switch {
		case c.other:
			t++
		case c.bits == 0:
			w[p.param[i]] = ints[i]
		default:
			x := ints[i]
			if c.null {
				x++
			}
			if x < 0 || x >= 1<<c.bits {
				return args, false
			}
			w[p.param[i]] |= x << p.shift[i]
		}
	}
	t = 0
	for i, c := range p.cols {
		switch {
		case c.other:
			args = append(args, others[t])
			t++
		case c.bits == 0 && c.null && ints[i] == -1:
			args = append(args, nil)
		case c.bits == 0:
			args = append(args, ints[i])
		default:
			if p.shift[i] == 0 {
				args = append(args, w[p.param[i]])
			}
		}
	}
	return args, true
}

// appendPlain appends a row's values, one to a parameter.
func (p *packing) appendPlain(args []any, ints []int64, others []any) []any {
	t := 0
	for i, c := range p.cols {
		switch {
		case c.other:
			args = append(args, others[t])
			t++
		case c.null && ints[i] == -1:
			args = append(args, nil)
		default:
			args = append(args, ints[i])
		}
	}
	return args
}

// bulkInsert is a table's prepared inserts: of one row and of chunk rows,
// each packed and plain.
type bulkInsert struct {
	p             *packing
	packed, plain [2]*sql.Stmt
}

func (b *bulkInsert) statements() []**sql.Stmt {
	return []**sql.Stmt{&b.packed[0], &b.packed[1], &b.plain[0], &b.plain[1]}
}

// sql returns the statements' texts, in statements' order.
func (b *bulkInsert) sql() []string {
	return []string{b.p.packedSQL(1), b.p.packedSQL(chunk), b.p.plainSQL(1), b.p.plainSQL(chunk)}
}

// rowBuffers are the writer's buffers for binding rows.
type rowBuffers struct {
	args   []any
	ints   []int64
	others []any
}

// insert inserts n rows, chunk to a statement and the rest one at a
// time; vals(k, ints, others) appends row k's integers and other values.
func (b *bulkInsert) insert(tx *sql.Tx, buf *rowBuffers, n int, vals func(k int, ints []int64, others []any) ([]int64, []any)) error {
	var inTx [4]*sql.Stmt // the statements within tx, made as needed: packed, plain; one row, chunk
	for i := 0; i < n; {
		m, size := chunk, 1
		if n-i < chunk {
			m, size = 1, 0
		}
		a, packed := buf.args[:0], true
		for k := i; k < i+m && packed; k++ {
			buf.ints, buf.others = vals(k, buf.ints[:0], buf.others[:0])
			a, packed = b.p.appendPacked(a, buf.ints, buf.others)
		}
		s, at := b.packed[size], size
		if !packed {
			a, s, at = buf.args[:0], b.plain[size], 2+size
			for k := i; k < i+m; k++ {
				buf.ints, buf.others = vals(k, buf.ints[:0], buf.others[:0])
				a = b.p.appendPlain(a, buf.ints, buf.others)
			}
		}
		buf.args = a
		if inTx[at] == nil {
			inTx[at] = tx.Stmt(s)
		}
		if _, err := inTx[at].Exec(a...); err != nil {
			return err
		}
		i += m
	}
	return nil
}
