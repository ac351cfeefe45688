package experiment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
)

// A clean twin's rows are read back once for every mutant unit taken from
// it (some 23 times in a default run), so they are kept in a compact
// binary form instead of JSON: every field of a value in declaration
// order, walked by reflection so that a field added to a row's types is
// kept without a change here. Strings and slices are a length and their
// bytes or elements (a nil slice apart from an empty one), integers
// varints, floats their bits, booleans a byte. Only the kinds rows hold
// are known; any other is an error, which the round-trip test meets first.

var errTwinCodec = errors.New("twin rows: value out of range")

// appendTwin appends v's encoding to b.
func appendTwin(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), nil
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0), nil
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		var err error
		for i := range v.Len() {
			if b, err = appendTwin(b, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return b, nil
	case reflect.Struct:
		t := v.Type()
		var err error
		for i := range v.NumField() {
			if !t.Field(i).IsExported() {
				return nil, fmt.Errorf("twin rows: unexported field %s.%s", t, t.Field(i).Name)
			}
			if b, err = appendTwin(b, v.Field(i)); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("twin rows: cannot keep a %s", v.Type())
}

// twinReader reads what appendTwin wrote.
type twinReader struct {
	b   []byte
	err error
}

func (r *twinReader) uvarint() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *twinReader) fail() {
	if r.err == nil {
		r.err = errTwinCodec
	}
	r.b = nil
}

// read sets v, which must be settable, from the next value.
func (r *twinReader) read(v reflect.Value) {
	if r.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.String:
		n := r.uvarint()
		if n > uint64(len(r.b)) {
			r.fail()
			return
		}
		v.SetString(string(r.b[:n]))
		r.b = r.b[n:]
	case reflect.Bool:
		if len(r.b) == 0 {
			r.fail()
			return
		}
		v.SetBool(r.b[0] != 0)
		r.b = r.b[1:]
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(r.b)
		if n <= 0 {
			r.fail()
			return
		}
		v.SetInt(x)
		r.b = r.b[n:]
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.uvarint())
	case reflect.Float32, reflect.Float64:
		if len(r.b) < 8 {
			r.fail()
			return
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(r.b)))
		r.b = r.b[8:]
	case reflect.Slice:
		n := r.uvarint()
		if n == 0 {
			return // nil, as the zero value is
		}
		if n-1 > uint64(len(r.b)) { // every element takes a byte at least
			r.fail()
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n-1), int(n-1))
		for i := range int(n - 1) {
			r.read(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			r.read(v.Field(i))
		}
	default:
		r.err = fmt.Errorf("twin rows: cannot read a %s", v.Type())
	}
}
