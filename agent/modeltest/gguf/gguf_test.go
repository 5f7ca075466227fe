package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// file is what read finds in a GGUF file.
type file struct {
	meta    map[string]any
	tensors map[string][]float32
	shapes  map[string][]uint64
}

// read decodes a GGUF file as llama.cpp does, checking the alignment of
// the tensors and that the data ends where the last one does.
func read(t *testing.T, b []byte) file {
	t.Helper()
	r := bytes.NewReader(b)
	get := func(v any) {
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			t.Fatalf("reading at %d: %v", len(b)-r.Len(), err)
		}
	}
	str := func() string {
		var n uint64
		get(&n)
		s := make([]byte, n)
		if _, err := io.ReadFull(r, s); err != nil {
			t.Fatal(err)
		}
		return string(s)
	}
	var magic [4]byte
	var version uint32
	var nTensors, nMeta uint64
	get(&magic)
	get(&version)
	get(&nTensors)
	get(&nMeta)
	if string(magic[:]) != "GGUF" || version != 3 {
		t.Fatalf("magic %q, version %d", magic, version)
	}
	f := file{meta: map[string]any{}, tensors: map[string][]float32{}, shapes: map[string][]uint64{}}
	var value func(typ uint32) any
	value = func(typ uint32) any {
		switch typ {
		case typeU32:
			var v uint32
			get(&v)
			return v
		case typeI32:
			var v int32
			get(&v)
			return v
		case typeF32:
			var v float32
			get(&v)
			return v
		case typeBool:
			var v bool
			get(&v)
			return v
		case typeString:
			return str()
		case typeArray:
			var et uint32
			var n uint64
			get(&et)
			get(&n)
			out := make([]any, n)
			for i := range out {
				out[i] = value(et)
			}
			return out
		}
		t.Fatalf("unknown value type %d", typ)
		return nil
	}
	for range nMeta {
		key := str()
		var typ uint32
		get(&typ)
		f.meta[key] = value(typ)
	}
	type info struct {
		name   string
		ne     []uint64
		offset uint64
	}
	var infos []info
	for range nTensors {
		in := info{name: str()}
		var dims, typ uint32
		get(&dims)
		in.ne = make([]uint64, dims)
		get(in.ne)
		get(&typ)
		get(&in.offset)
		if typ != 0 {
			t.Fatalf("%s: type %d, want F32", in.name, typ)
		}
		infos = append(infos, in)
	}
	pos := len(b) - r.Len()
	base := (pos + 31) / 32 * 32
	for _, in := range infos {
		if in.offset%32 != 0 {
			t.Errorf("%s at offset %d, not aligned to 32", in.name, in.offset)
		}
		n := uint64(1)
		for _, d := range in.ne {
			n *= d
		}
		start := uint64(base) + in.offset
		if start+4*n > uint64(len(b)) {
			t.Fatalf("%s runs past the end of the file", in.name)
		}
		data := make([]float32, n)
		binary.Read(bytes.NewReader(b[start:start+4*n]), binary.LittleEndian, data)
		f.tensors[in.name], f.shapes[in.name] = data, in.ne
	}
	return f
}

func write(t *testing.T, m Model) file {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, m); err != nil {
		t.Fatal(err)
	}
	return read(t, b.Bytes())
}

func TestAModelDeclaresItsShapeVocabularyAndTemplate(t *testing.T) {
	f := write(t, Model{Template: PlainTemplate, Context: 2048, Seed: 1})
	tokens := f.meta["tokenizer.ggml.tokens"].([]any)
	if len(tokens) != 3+256 || tokens[EOS] != "</s>" || tokens[ByteToken('A')] != "<0x41>" || tokens[ByteToken(0xff)] != "<0xFF>" {
		t.Errorf("the vocabulary has %d tokens: %v", len(tokens), tokens[:5])
	}
	if f.meta["tokenizer.chat_template"] != PlainTemplate || f.meta["llama.context_length"] != uint32(2048) {
		t.Errorf("the template or the context length is lost: %v", f.meta["llama.context_length"])
	}
	if got := f.shapes["token_embd.weight"]; got[0] != 32 || got[1] != uint64(len(tokens)) {
		t.Errorf("the embeddings are %v", got)
	}
	if _, ok := write(t, Model{}).meta["tokenizer.chat_template"]; ok {
		t.Error("a model without a template declares one")
	}
}

// logits returns what the output layer gives after token tok, as the
// model computes it with the block's small contributions left out: the
// embedding, RMS-normalized, times the output weights.
func logits(f file, tok int) []float32 {
	width := int(f.shapes["token_embd.weight"][0])
	e := f.tensors["token_embd.weight"][tok*width : (tok+1)*width]
	var ss float64
	for _, v := range e {
		ss += float64(v) * float64(v)
	}
	norm := float32(1 / math.Sqrt(ss/float64(width)+1e-5))
	out := f.tensors["output.weight"]
	l := make([]float32, len(out)/width)
	for u := range l {
		for d := range width {
			l[u] += e[d] * norm * out[u*width+d]
		}
	}
	return l
}

func argmax(l []float32) int {
	best := 0
	for i, v := range l {
		if v > l[best] {
			best = i
		}
	}
	return best
}

func TestASpelledModelWritesItsTextPieceByPieceThenEnds(t *testing.T) {
	const text = "Thought: I add.\nAction: calculator\nAction Input: {\"expression\": \"2+2\"}"
	f := write(t, Model{Spell: text, Seed: 3})
	tokens := f.meta["tokenizer.ggml.tokens"].([]any)
	var got strings.Builder
	tok := ByteToken('\n') // the end of a prompt
	for range 100 {
		l := logits(f, tok)
		next := argmax(l)
		second := l[(next+1)%len(l)]
		for u, v := range l {
			if u != next && v > second {
				second = v
			}
		}
		if l[next]-second < 10 {
			t.Fatalf("after %q the model hesitates: %.1f against %.1f", got.String(), l[next], second)
		}
		if next == EOS {
			break
		}
		got.WriteString(strings.ReplaceAll(tokens[next].(string), "\u2581", " "))
		tok = next
	}
	if got.String() != text {
		t.Errorf("the model spells %q, want %q", got.String(), text)
	}
}

func TestAnEndlessSpelledModelGoesOnAsItsPriorSays(t *testing.T) {
	pieces, _ := Pieces("Action: ")
	f := write(t, Model{Spell: "Action: ", Endless: true, Prior: map[int]float32{ByteToken('x'): 12}, Seed: 3})
	last := 3 + 256 + len(pieces) - 1
	if next := argmax(logits(f, last)); next != ByteToken('x') {
		t.Errorf("after the text the model writes token %d, want the byte x the prior favours", next)
	}
}

func TestThePriorBiasesAPlainModelAndBytesBeyondASCIIAreNeverWritten(t *testing.T) {
	f := write(t, Model{Prior: map[int]float32{EOS: 8, ByteToken('"'): 4}, Seed: 2})
	l := logits(f, ByteToken('a'))
	if argmax(l) != EOS || l[ByteToken('"')] < 3 || l[ByteToken(0xc3)] > -30 {
		t.Errorf("EOS %.1f, quote %.1f, 0xC3 %.1f", l[EOS], l[ByteToken('"')], l[ByteToken(0xc3)])
	}
	all := write(t, Model{AllBytes: true, Seed: 2})
	if v := logits(all, ByteToken('a'))[ByteToken(0xc3)]; v < -1 {
		t.Errorf("with AllBytes, 0xC3 has the logit %.1f", v)
	}
}

func TestFillersPadTheVocabularyWithDistinctLowercaseTokens(t *testing.T) {
	f := write(t, Model{Vocab: 32000, Filler: 12, Spell: "qaaaaaaaaaaa then", Seed: 1})
	tokens := f.meta["tokenizer.ggml.tokens"].([]any)
	if len(tokens) != 32000 {
		t.Fatalf("%d tokens, want 32000", len(tokens))
	}
	seen := map[string]bool{}
	for _, tok := range tokens {
		s := tok.(string)
		if seen[s] {
			t.Fatalf("the token %q is there twice", s)
		}
		seen[s] = true
	}
	if s := tokens[len(tokens)-1].(string); len(s) != 12 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") != "" {
		t.Errorf("the last filler is %q", s)
	}
	if err := Write(io.Discard, Model{Vocab: maxVocab + 1}); err == nil {
		t.Error("a vocabulary too large for the fillers is written")
	}
}

func TestPiecesAreDistinctAndLongEnoughThatNoTokenizerMakesThem(t *testing.T) {
	for _, text := range []string{
		"Final Answer: 4",
		"aaaaaaaaaaaaaaaaaaaaaaaa",
		"abcabcabcabcab",
		"Action: x\nAction: x\nAction: x\n",
		"caf\xff ok",
		"ab",
		"",
	} {
		pieces, err := Pieces(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if strings.Join(pieces, "") != text {
			t.Errorf("%q is cut into %q", text, pieces)
		}
		seen := map[string]bool{}
		for _, p := range pieces {
			if seen[p] || (len(p) < 3 && len(text) >= 3) {
				t.Errorf("%q: the piece %q is short or not the only one", text, p)
			}
			seen[p] = true
		}
	}
	if _, err := Pieces("<0x41>"); err == nil {
		t.Error("a piece named like a byte token is taken")
	}
}

func TestASpelledModelMayWriteInvalidUTF8(t *testing.T) {
	f := write(t, Model{Spell: "bad \xff!", Seed: 1})
	var b strings.Builder
	for _, tok := range f.meta["tokenizer.ggml.tokens"].([]any)[3+256:] {
		b.WriteString(tok.(string))
	}
	if utf8.ValidString(b.String()) {
		t.Errorf("the pieces %q lost the invalid byte", b.String())
	}
}

func ExampleWriteFile() {
	// A model that answers every prompt with a step calling the calculator,
	// under a chat template that supports tool calls.
	m := Model{
		Template: ToolsTemplate,
		Spell:    "Action: calculator\nAction Input: {\"expression\": \"2+2\"}",
		Seed:     1,
	}
	var b bytes.Buffer
	if err := Write(&b, m); err != nil {
		panic(err)
	}
	pieces, _ := Pieces(m.Spell)
	fmt.Printf("%q\n", pieces[:4])
	// Output: ["Act" "ion" ": c" "alc"]
}
