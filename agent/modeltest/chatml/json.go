package chatml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A value is a JSON value whose objects keep their keys in order, as
// llama.cpp reads a request.
type value struct {
	kind byte // '{', '[', '"', '0' (a number), 't', 'f' or 'n'
	text string
	keys []string
	vals []value
}

// parse reads one JSON value.
func parse(data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := read(dec)
	if err != nil {
		return value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return value{}, errors.New("more than one JSON value")
	}
	return v, nil
}

func read(dec *json.Decoder) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := value{kind: byte(t)}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return value{}, err
				}
				v.keys = append(v.keys, k.(string))
			}
			item, err := read(dec)
			if err != nil {
				return value{}, err
			}
			v.vals = append(v.vals, item)
		}
		_, err := dec.Token() // the closing delimiter
		return v, err
	case string:
		return value{kind: '"', text: t}, nil
	case json.Number:
		return value{kind: '0', text: string(t)}, nil
	case bool:
		if t {
			return value{kind: 't'}, nil
		}
		return value{kind: 'f'}, nil
	case nil:
		return value{kind: 'n'}, nil
	}
	return value{}, fmt.Errorf("unexpected %v", tok)
}

// tojson writes v as llama.cpp's Jinja engine writes it with tojson: ", "
// between items, ": " after keys, strings escaped byte by byte, an integer
// as it is and any other number as C++ streams write a double.
func (v value) tojson(b *strings.Builder) {
	switch v.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			quote(b, k)
			b.WriteString(": ")
			v.vals[i].tojson(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, item := range v.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			item.tojson(b)
		}
		b.WriteByte(']')
	case '"':
		quote(b, v.text)
	case '0':
		if !strings.ContainsAny(v.text, ".eE") {
			if n, err := strconv.ParseInt(v.text, 10, 64); err == nil {
				b.WriteString(strconv.FormatInt(n, 10))
				return
			}
		}
		f, _ := strconv.ParseFloat(v.text, 64)
		b.WriteString(strconv.FormatFloat(f, 'g', 6, 64))
	case 't':
		b.WriteString("true")
	case 'f':
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
}

// quote writes s as a JSON string as llama.cpp's Jinja engine does: only
// the quote, the backslash and the control characters escaped, every
// other byte as it is.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
