package telemetry

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"unicode/utf8"
)

// The protocol buffers wire format, as far as OTLP's messages need it
// (protobuf.dev/programming-guides/encoding): a field is a tag, its number
// and wire type in a varint, then a varint, eight or four little-endian
// bytes, or a length-delimited run of bytes: a string, bytes, or a
// nested message. It is written with encoding/binary, whose uvarint is
// protobuf's varint: google.golang.org/protobuf/encoding/protowire would
// do the same, but links a package whose init reads the executable at
// every start of the program, traced or not.

// wireType is the wire type of a field.
type wireType uint8

const (
	wireVarint  wireType = 0
	wireFixed64 wireType = 1
	wireBytes   wireType = 2
	wireFixed32 wireType = 5
)

// appendTag appends the tag of field num, of wire type typ.
func appendTag(b []byte, num int, typ wireType) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(typ))
}

// appendVarint appends field num as a varint, unless v is 0, as proto3
// writes a scalar outside a oneof.
func appendVarint(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendOneofVarint(b, num, v)
}

// appendFixed64 appends field num as eight bytes, unless v is 0.
func appendFixed64(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendOneofFixed64(b, num, v)
}

// appendFixed32 appends field num as four bytes, unless v is 0.
func appendFixed32(b []byte, num int, v uint32) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint32(appendTag(b, num, wireFixed32), v)
}

// appendOneofVarint appends field num as a varint, even 0: a member of a
// oneof is written whenever it is the one set.
func appendOneofVarint(b []byte, num int, v uint64) []byte {
	return binary.AppendUvarint(appendTag(b, num, wireVarint), v)
}

// appendOneofFixed64 appends field num as eight bytes, even 0.
func appendOneofFixed64(b []byte, num int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, num, wireFixed64), v)
}

// appendOneofBytes appends field num as its length and v, even empty.
func appendOneofBytes(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(appendTag(b, num, wireBytes), uint64(len(v)))
	return append(b, v...)
}

// appendBytes appends field num as its length and v, unless v is empty.
func appendBytes(b []byte, num int, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return appendOneofBytes(b, num, v)
}

// appendString appends field num as a string, unless s is "". A protobuf
// string is UTF-8, which a decoder checks: bytes that are not are each
// written as U+FFFD, so that a collector takes the rest of the batch.
func appendString(b []byte, num int, s string) []byte {
	if s == "" {
		return b
	}
	return appendOneofString(b, num, s)
}

// appendOneofString appends field num as a string, even "": a member of a
// oneof is written whenever it is the one set.
func appendOneofString(b []byte, num int, s string) []byte {
	b = appendTag(b, num, wireBytes)
	if !utf8.ValidString(s) {
		return appendInvalidUTF8(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendInvalidUTF8 appends the length and text of s, with each byte
// that is not UTF-8 as U+FFFD, as strings.ToValidUTF8 would write each
// run of them but without a copy of s.
func appendInvalidUTF8(b []byte, s string) []byte {
	n := 0
	for _, r := range s { // an invalid byte is one RuneError of width 1
		n += utf8.RuneLen(r)
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, r := range s {
		b = utf8.AppendRune(b, r)
	}
	return b
}

// appendMessage appends field num as a nested message, which fn appends,
// even when it is empty: a message field set to an empty message is not
// one left unset.
func appendMessage(b []byte, num int, fn func([]byte) []byte) []byte {
	b = appendTag(b, num, wireBytes)
	// The length goes before the message, which is not yet written: a
	// byte is kept for it, and the message moved on when it needs more.
	at := len(b)
	b = fn(append(b, 0))
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	size := varintSize(uint64(n))
	b = append(b, make([]byte, size-1)...)
	copy(b[at+size:], b[at+1:at+1+n])
	binary.AppendUvarint(b[:at], uint64(n))
	return b
}

// varintSize is the number of bytes of v as a varint.
func varintSize(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// errTruncated is the error of a message that ends inside a field.
var errTruncated = errors.New("the message ends inside a field")

// field is a field read from a message: its number and wire type, and
// its value, as a number or as bytes.
type field struct {
	num   int
	typ   wireType
	value uint64
	bytes []byte
}

// nextField reads the first field of b and returns the rest of b.
func nextField(b []byte) (field, []byte, error) {
	tag, n := binary.Uvarint(b)
	if n <= 0 || tag>>3 == 0 || tag>>3 > math.MaxInt32 {
		return field{}, nil, errTruncated
	}
	f := field{num: int(tag >> 3), typ: wireType(tag & 7)}
	b = b[n:]
	switch f.typ {
	case wireVarint:
		if f.value, n = binary.Uvarint(b); n <= 0 {
			return field{}, nil, errTruncated
		}
		return f, b[n:], nil
	case wireFixed64:
		if len(b) < 8 {
			return field{}, nil, errTruncated
		}
		f.value = binary.LittleEndian.Uint64(b)
		return f, b[8:], nil
	case wireFixed32:
		if len(b) < 4 {
			return field{}, nil, errTruncated
		}
		f.value = uint64(binary.LittleEndian.Uint32(b))
		return f, b[4:], nil
	case wireBytes:
		size, n := binary.Uvarint(b)
		if n <= 0 || size > uint64(len(b)-n) {
			return field{}, nil, errTruncated
		}
		f.bytes = b[n : n+int(size)]
		return f, b[n+int(size):], nil
	}
	return field{}, nil, errors.New("the message holds a field of a wire type OTLP does not use")
}
