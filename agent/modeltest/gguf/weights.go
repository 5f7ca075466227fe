package gguf

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Space is the token of a space in the vocabulary of a model with trained
// weights: the byte vocabulary and one more token, "▁" (U+2581), which is
// how SentencePiece tokenizers (llama.cpp's and Ollama's for the "llama"
// tokenizer) write a space. Without it they would read a space in a prompt
// as the three bytes of "▁", and the model could not write what it read.
const Space = 3 + 256

// TrainedVocab is the size of the vocabulary of a model with trained
// weights: unknown, the start and the end of a text, the 256 bytes, and
// Space.
const TrainedVocab = Space + 1

// Weights are the shape and the tensors of a trained llama model, which
// Write writes instead of random weights (see Model.Weights). The model is
// llama.cpp's "llama" architecture: RMSNorm, rotary positions that rotate
// adjacent pairs of each head's dimensions, a SwiGLU feed-forward layer and
// an output layer of its own; the vocabulary is TrainedVocab tokens.
type Weights struct {
	// Width is the width of the embeddings.
	Width int
	// Layers is the number of blocks.
	Layers int
	// Heads is the number of attention heads, of keys and values as of
	// queries.
	Heads int
	// FeedForward is the width of the feed-forward layer.
	FeedForward int
	// RMSEpsilon is the epsilon of every RMSNorm.
	RMSEpsilon float32
	// RopeBase is the base of the rotary positions' frequencies.
	RopeBase float32
	// Tensors holds the weights by their GGUF names ("token_embd.weight",
	// "blk.0.attn_q.weight"…).
	Tensors map[string]Tensor
}

// Tensor is one tensor of Weights: its shape, outermost first as PyTorch
// gives it ([out, in] for a linear layer), and its values in that order.
type Tensor struct {
	Shape []int
	Data  []float32
}

// tensorNames returns the names of the tensors of w, in the order Write
// writes them, with the shape each must have.
func (w *Weights) tensorNames() []named {
	d, ff := w.Width, w.FeedForward
	names := []named{
		{"token_embd.weight", []int{TrainedVocab, d}},
		{"output_norm.weight", []int{d}},
		{"output.weight", []int{TrainedVocab, d}},
	}
	for i := range w.Layers {
		for _, n := range []named{
			{"attn_norm.weight", []int{d}},
			{"attn_q.weight", []int{d, d}},
			{"attn_k.weight", []int{d, d}},
			{"attn_v.weight", []int{d, d}},
			{"attn_output.weight", []int{d, d}},
			{"ffn_norm.weight", []int{d}},
			{"ffn_gate.weight", []int{ff, d}},
			{"ffn_up.weight", []int{ff, d}},
			{"ffn_down.weight", []int{d, ff}},
		} {
			names = append(names, named{fmt.Sprintf("blk.%d.%s", i, n.name), n.shape})
		}
	}
	return names
}

// named is a tensor's name and shape.
type named struct {
	name  string
	shape []int
}

// check reports what makes w not a model Write can write.
func (w *Weights) check() error {
	switch {
	case w.Width <= 0 || w.Layers <= 0 || w.Heads <= 0 || w.FeedForward <= 0:
		return fmt.Errorf("gguf: weights of width %d, %d layers, %d heads and a feed-forward layer of %d: all must be positive",
			w.Width, w.Layers, w.Heads, w.FeedForward)
	case w.Width%w.Heads != 0 || (w.Width/w.Heads)%2 != 0:
		return fmt.Errorf("gguf: a width of %d in %d heads: each head must have an even number of dimensions", w.Width, w.Heads)
	case !(w.RMSEpsilon > 0) || !(w.RopeBase > 0):
		return fmt.Errorf("gguf: an RMSNorm epsilon of %g and a rope base of %g: both must be positive", w.RMSEpsilon, w.RopeBase)
	}
	want := w.tensorNames()
	for _, n := range want {
		t, ok := w.Tensors[n.name]
		switch {
		case !ok:
			return fmt.Errorf("gguf: the weights have no tensor %s", n.name)
		case !slices.Equal(t.Shape, n.shape):
			return fmt.Errorf("gguf: the tensor %s is %v; a model of this shape needs %v", n.name, t.Shape, n.shape)
		case len(t.Data) != product(n.shape):
			return fmt.Errorf("gguf: the tensor %s holds %d values, not %d", n.name, len(t.Data), product(n.shape))
		}
	}
	if err := w.finite(); err != nil {
		return err
	}
	if len(w.Tensors) != len(want) {
		for name := range w.Tensors {
			if !slices.ContainsFunc(want, func(n named) bool { return n.name == name }) {
				return fmt.Errorf("gguf: the weights hold a tensor %s, which a llama model of this shape has not", name)
			}
		}
	}
	return nil
}

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// trained returns the vocabulary, the tensors and the metadata of m, whose
// Weights are set.
func trained(m Model) ([]string, []int32, []tensor, []kv, error) {
	w := m.Weights
	if m.Spell != "" || m.Prior != nil || m.Vocab != 0 || m.AllBytes || m.Endless || m.Filler != 0 {
		return nil, nil, nil, nil, errors.New("gguf: a model with trained weights writes what it learned: Spell, Endless, Prior, AllBytes, Vocab and Filler are for random models")
	}
	if err := w.check(); err != nil {
		return nil, nil, nil, nil, err
	}
	tokens, types := byteVocab()
	tokens, types = append(tokens, "\u2581"), append(types, 1)
	var tensors []tensor
	for _, n := range w.tensorNames() {
		ne := make([]uint64, len(n.shape))
		for i, d := range n.shape {
			ne[len(n.shape)-1-i] = uint64(d) // GGUF gives the innermost dimension first
		}
		tensors = append(tensors, tensor{n.name, ne, w.Tensors[n.name].Data})
	}
	name := m.Name
	if name == "" {
		name = "trained llama"
	}
	meta := []kv{
		{"general.architecture", "llama"}, {"general.name", name},
		{"llama.context_length", uint32(contextLength(m))}, {"llama.embedding_length", uint32(w.Width)},
		{"llama.block_count", uint32(w.Layers)}, {"llama.feed_forward_length", uint32(w.FeedForward)},
		{"llama.attention.head_count", uint32(w.Heads)}, {"llama.attention.head_count_kv", uint32(w.Heads)},
		{"llama.attention.layer_norm_rms_epsilon", w.RMSEpsilon}, {"llama.rope.dimension_count", uint32(w.Width / w.Heads)},
		{"llama.rope.freq_base", w.RopeBase},
	}
	return tokens, types, tensors, meta, nil
}

// ReadSafetensors reads trained weights from a safetensors file: float32
// tensors under their GGUF names, and the model's shape in the metadata
// ("width", "layers", "heads", "ff", "rms_eps", "rope_theta"), as the toy
// model's training code writes them.
func ReadSafetensors(r io.Reader) (*Weights, error) {
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return nil, fmt.Errorf("gguf: reading safetensors: %w", err)
	}
	if n > 16<<20 {
		return nil, fmt.Errorf("gguf: a safetensors header of %d bytes; is it a safetensors file?", n)
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("gguf: reading safetensors: %w", err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(head, &entries); err != nil {
		return nil, fmt.Errorf("gguf: the safetensors header is not JSON: %w", err)
	}
	var meta map[string]string
	if raw, ok := entries["__metadata__"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("gguf: the safetensors metadata: %w", err)
		}
		delete(entries, "__metadata__")
	}
	w := &Weights{Tensors: map[string]Tensor{}}
	var err error
	num := func(key string) float64 {
		v, perr := strconv.ParseFloat(meta[key], 64)
		if perr != nil && err == nil {
			err = fmt.Errorf("gguf: the safetensors metadata has no number %q (%q)", key, meta[key])
		}
		return v
	}
	w.Width, w.Layers, w.Heads, w.FeedForward = int(num("width")), int(num("layers")), int(num("heads")), int(num("ff"))
	w.RMSEpsilon, w.RopeBase = float32(num("rms_eps")), float32(num("rope_theta"))
	if err != nil {
		return nil, err
	}
	type entry struct {
		name    string
		DType   string `json:"dtype"`
		Shape   []int  `json:"shape"`
		Offsets [2]int `json:"data_offsets"`
	}
	var list []entry
	for name, raw := range entries {
		e := entry{name: name}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("gguf: the safetensors entry %s: %w", name, err)
		}
		if e.DType != "F32" {
			return nil, fmt.Errorf("gguf: the tensor %s is %s; only F32 is read", name, e.DType)
		}
		list = append(list, e)
	}
	slices.SortFunc(list, func(a, b entry) int { return a.Offsets[0] - b.Offsets[0] })
	br := bufio.NewReader(r)
	at := 0
	for _, e := range list {
		size := product(e.Shape)
		if e.Offsets[0] != at || e.Offsets[1]-e.Offsets[0] != 4*size || size > 1<<28 {
			return nil, fmt.Errorf("gguf: the tensor %s is at bytes %v, not %d values from %d", e.name, e.Offsets, size, at)
		}
		data := make([]float32, size)
		if err := binary.Read(br, binary.LittleEndian, data); err != nil {
			return nil, fmt.Errorf("gguf: reading the tensor %s: %w", e.name, err)
		}
		w.Tensors[e.name] = Tensor{Shape: e.Shape, Data: data}
		at = e.Offsets[1]
	}
	return w, w.check()
}

// ReadSafetensorsFile reads trained weights from the safetensors file at
// path (see ReadSafetensors).
func ReadSafetensorsFile(path string) (*Weights, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSafetensors(f)
}

// Read reads back a model with trained weights that Write wrote: its
// name, chat template, context length and weights, so that writing it
// again gives the same bytes.
func Read(r io.Reader) (Model, error) {
	d := &decoder{r: bufio.NewReader(r)}
	var magic [4]byte
	var version uint32
	var nTensors, nMeta uint64
	d.get(&magic)
	d.get(&version)
	d.get(&nTensors)
	d.get(&nMeta)
	if d.err != nil || string(magic[:]) != "GGUF" || version != 3 {
		return Model{}, fmt.Errorf("gguf: not a GGUF version 3 file (%q, version %d, %v)", magic, version, d.err)
	}
	meta := map[string]any{}
	for range min(nMeta, 1024) {
		key := d.str()
		meta[key] = d.value()
	}
	type info struct {
		name   string
		ne     []uint64
		offset uint64
	}
	var infos []info
	for range min(nTensors, 4096) {
		in := info{name: d.str()}
		var dims, typ uint32
		d.get(&dims)
		in.ne = make([]uint64, min(dims, 4))
		d.get(in.ne)
		d.get(&typ)
		d.get(&in.offset)
		if d.err == nil && typ != 0 {
			return Model{}, fmt.Errorf("gguf: the tensor %s is of type %d; only F32 is read", in.name, typ)
		}
		infos = append(infos, in)
	}
	if d.err != nil {
		return Model{}, fmt.Errorf("gguf: reading the header: %w", d.err)
	}
	u32 := func(key string) int { v, _ := meta[key].(uint32); return int(v) }
	f32 := func(key string) float32 { v, _ := meta[key].(float32); return v }
	m := Model{Context: u32("llama.context_length")}
	m.Name, _ = meta["general.name"].(string)
	m.Template, _ = meta["tokenizer.chat_template"].(string)
	if tokens, _ := meta["tokenizer.ggml.tokens"].([]string); len(tokens) != TrainedVocab || tokens[Space] != "\u2581" {
		return Model{}, fmt.Errorf("gguf: a vocabulary of %d tokens; a model with trained weights has %d, the last a space", len(tokens), TrainedVocab)
	}
	w := &Weights{Width: u32("llama.embedding_length"), Layers: u32("llama.block_count"), Heads: u32("llama.attention.head_count"),
		FeedForward: u32("llama.feed_forward_length"), RMSEpsilon: f32("llama.attention.layer_norm_rms_epsilon"),
		RopeBase: f32("llama.rope.freq_base"), Tensors: map[string]Tensor{}}
	d.skip(pad(d.n) - d.n)
	base := d.n
	for _, in := range infos {
		d.skip(base + int(in.offset) - d.n)
		shape := make([]int, len(in.ne))
		for i, n := range in.ne {
			shape[len(in.ne)-1-i] = int(min(n, 1<<28))
		}
		if product(shape) > 1<<28 {
			return Model{}, fmt.Errorf("gguf: the tensor %s is too large", in.name)
		}
		data := make([]float32, product(shape))
		d.get(data)
		w.Tensors[in.name] = Tensor{Shape: shape, Data: data}
	}
	if d.err != nil {
		return Model{}, fmt.Errorf("gguf: reading the tensors: %w", d.err)
	}
	m.Weights = w
	return m, w.check()
}

// ReadFile reads back the model with trained weights in the GGUF file at
// path (see Read).
func ReadFile(path string) (Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return Model{}, err
	}
	defer f.Close()
	return Read(f)
}

// decoder reads little-endian GGUF values, keeping the first error.
type decoder struct {
	r   *bufio.Reader
	n   int
	err error
}

func (d *decoder) get(v any) {
	if d.err != nil {
		return
	}
	d.err = binary.Read(d.r, binary.LittleEndian, v)
	d.n += binary.Size(v)
}

func (d *decoder) skip(n int) {
	if d.err != nil || n <= 0 {
		return
	}
	var k int
	k, d.err = d.r.Discard(n)
	d.n += k
}

func (d *decoder) str() string {
	var n uint64
	d.get(&n)
	if d.err != nil || n > 1<<24 {
		d.err = errors.Join(d.err, errors.New("a string too long"))
		return ""
	}
	b := make([]byte, n)
	_, d.err = io.ReadFull(d.r, b)
	d.n += int(n)
	return string(b)
}

// value reads a typed value of the kinds Write writes; arrays of strings
// come back as []string, of numbers as []float32 or []int32.
func (d *decoder) value() any {
	var typ uint32
	d.get(&typ)
	switch typ {
	case typeU32:
		var v uint32
		d.get(&v)
		return v
	case typeF32:
		var v float32
		d.get(&v)
		return v
	case typeBool:
		var v bool
		d.get(&v)
		return v
	case typeString:
		return d.str()
	case typeArray:
		var et uint32
		var n uint64
		d.get(&et)
		d.get(&n)
		if n > 1<<20 {
			d.err = errors.Join(d.err, errors.New("an array too long"))
			return nil
		}
		switch et {
		case typeString:
			out := make([]string, n)
			for i := range out {
				out[i] = d.str()
			}
			return out
		case typeF32:
			out := make([]float32, n)
			d.get(out)
			return out
		case typeI32:
			out := make([]int32, n)
			d.get(out)
			return out
		}
	}
	if d.err == nil {
		d.err = fmt.Errorf("a value of type %d", typ)
	}
	return nil
}

// finite reports whether every value of w is a finite number.
func (w *Weights) finite() error {
	for name, t := range w.Tensors {
		for _, v := range t.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("gguf: the tensor %s holds %v", name, v)
			}
		}
	}
	return nil
}

// String describes the shape of w, as in "4 layers of width 128, 2 heads,
// feed-forward 352: 870,528 parameters".
func (w *Weights) String() string {
	n := 0
	for _, t := range w.Tensors {
		n += len(t.Data)
	}
	return fmt.Sprintf("%d layers of width %d, %d heads, feed-forward %d: %s parameters",
		w.Layers, w.Width, w.Heads, w.FeedForward, strings.TrimSpace(commas(n)))
}

// commas writes n with a comma between its thousands.
func commas(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
