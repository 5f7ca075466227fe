// Package gguf writes tiny llama-architecture models in the GGUF format, for
// tests that run a real model server (llama.cpp's llama-server, Ollama,
// node-llama-cpp) without downloading a model.
//
// A model has one block, random attention and feed-forward weights and a
// vocabulary of control tokens and the 256 byte tokens, so that any text is
// written byte by byte. Its output layer decides what it writes, from the
// last token alone:
//
//   - Prior gives some tokens a logit, whatever came before; a plain model
//     (no Spell) writes random bytes with that bias, and a grammar alone
//     decides what its samples fit;
//   - Spell makes the output layer a bigram table that spells a chosen
//     text: the text is cut into pieces of three bytes or more, each a token
//     of its own; a newline, which ends the prompt of every chat template,
//     strongly predicts the first piece, each piece the next, and the last
//     one the end of the reply. So every reply spells the text, and a
//     grammar that forbids a piece sends the model to what Prior favours.
//
// The pieces are never produced by a tokenizer (llama.cpp and Ollama merge
// pairs of symbols that are themselves tokens, and no token has two bytes),
// so a prompt is read byte by byte whatever it holds.
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
)

// The tokens of every model's vocabulary: unknown, the start and the end
// of a text, then the 256 bytes (see ByteToken).
const (
	Unknown = 0
	BOS     = 1
	EOS     = 2
)

// ByteToken returns the token of byte b.
func ByteToken(b byte) int { return 3 + int(b) }

// never is the logit of what a model must not write: a token whose
// probability is e^-40 of the others'.
const never = -40

// Model describes the model Write writes.
type Model struct {
	// Template is the model's chat template, in Jinja, kept as
	// tokenizer.chat_template for llama-server's --jinja and
	// /apply-template; empty for none. ToolsTemplate and PlainTemplate
	// are two such.
	Template string
	// Spell is the text the model writes, then the end of the reply; empty
	// for a plain random model. It may hold any bytes, invalid UTF-8
	// included.
	Spell string
	// Endless leaves the end of the reply out after Spell: the model then
	// writes what Prior says, and a reply runs to the server's token limit
	// unless Prior favours EOS.
	Endless bool
	// Prior gives tokens a logit, whatever came before; the others have
	// 0, but for the bytes beyond ASCII (see AllBytes).
	Prior map[int]float32
	// AllBytes lets the model write every byte. Without it, the bytes
	// beyond ASCII are in the vocabulary (prompts may hold them) but the
	// model never writes them, so that its replies are valid UTF-8:
	// llama-server answers 500 to a reply that is not.
	AllBytes bool
	// Context is the context length the model declares, in tokens;
	// 0 for 4096.
	Context int
	// Vocab pads the vocabulary with filler tokens ("q" and lowercase
	// letters, which a plain model writes as often as bytes) up to this
	// many tokens, at most 400,000, for measures that depend on the
	// vocabulary's size; 0 for none.
	Vocab int
	// Filler is the length of a filler token in bytes, 5 unless larger:
	// a plain model with many long fillers writes a long reply in few
	// tokens.
	Filler int
	// Seed chooses the random weights.
	Seed uint64
	// Name is the model's general.name; empty for "tiny random llama", or
	// "trained llama" with Weights.
	Name string
	// Weights are trained weights to write instead of random ones; the
	// model then writes what it learned, and Spell, Endless, Prior,
	// AllBytes, Vocab and Filler must be left out. Its vocabulary is
	// TrainedVocab tokens, the byte tokens and Space.
	Weights *Weights
}

// The shape of every model: 2 heads, a feed-forward layer twice as wide
// as the embeddings, which are 32 wide, or wider for a long Spell.
const (
	heads    = 2
	minEmbd  = 32
	lead     = 10 // the first dimension of every embedding, which carries Prior
	identity = 10 // a token's own dimension, in its embedding
	strength = 40 // the logit of the token a bigram leads to
)

// WriteFile writes m to the file at path.
func WriteFile(path string, m Model) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, m); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Write writes m to w, in GGUF version 3 with 32-bit float tensors.
func Write(w io.Writer, m Model) error {
	var (
		tokens  []string
		types   []int32
		tensors []tensor
		meta    []kv
		err     error
	)
	if m.Weights != nil {
		tokens, types, tensors, meta, err = trained(m)
	} else {
		tokens, types, tensors, meta, err = randomModel(m)
	}
	if err != nil {
		return err
	}
	meta = append(meta,
		kv{"tokenizer.ggml.model", "llama"}, kv{"tokenizer.ggml.tokens", tokens},
		kv{"tokenizer.ggml.scores", make([]float32, len(tokens))}, kv{"tokenizer.ggml.token_type", types},
		kv{"tokenizer.ggml.unknown_token_id", uint32(Unknown)}, kv{"tokenizer.ggml.bos_token_id", uint32(BOS)},
		kv{"tokenizer.ggml.eos_token_id", uint32(EOS)}, kv{"tokenizer.ggml.add_bos_token", true},
		kv{"tokenizer.ggml.add_eos_token", false}, kv{"tokenizer.ggml.add_space_prefix", false},
	)
	if m.Template != "" {
		meta = append(meta, kv{"tokenizer.chat_template", m.Template})
	}

	bw := bufio.NewWriter(w)
	e := &encoder{w: bw}
	e.raw([]byte("GGUF"))
	e.put(uint32(3))
	e.put(uint64(len(tensors)))
	e.put(uint64(len(meta)))
	for _, kv := range meta {
		e.kv(kv)
	}
	offset := 0
	for _, t := range tensors {
		e.str(t.name)
		e.put(uint32(len(t.ne)))
		e.put(t.ne)
		e.put(uint32(0)) // F32
		e.put(uint64(offset))
		offset = pad(offset + 4*len(t.data))
	}
	e.raw(make([]byte, pad(e.n)-e.n))
	for _, t := range tensors {
		begin := e.n
		e.put(t.data)
		e.raw(make([]byte, pad(e.n-begin)-(e.n-begin)))
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// tensor is a tensor as GGUF holds it: its dimensions innermost first.
type tensor struct {
	name string
	ne   []uint64
	data []float32
}

// align is the alignment of the tensors' data.
const align = 32

func pad(n int) int { return (n + align - 1) / align * align }

// byteVocab returns the vocabulary every model starts with, and the types
// of its tokens: unknown, the start and the end of a text, the 256 bytes.
func byteVocab() ([]string, []int32) {
	tokens := []string{"<unk>", "<s>", "</s>"}
	types := []int32{2, 3, 3} // unknown, control, control; then bytes (6) and normal tokens (1)
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, 6)
	}
	return tokens, types
}

// contextLength returns the context length m declares.
func contextLength(m Model) int {
	if m.Context == 0 {
		return 4096
	}
	return m.Context
}

// randomModel returns the vocabulary, the tensors and the metadata of m with
// random weights.
func randomModel(m Model) ([]string, []int32, []tensor, []kv, error) {
	pieces, err := Pieces(m.Spell)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	tokens, types := byteVocab()
	first := len(tokens)
	for _, p := range pieces {
		tokens = append(tokens, strings.ReplaceAll(p, " ", "\u2581")) // SentencePiece writes spaces so
		types = append(types, 1)
	}
	if m.Vocab > maxVocab {
		return nil, nil, nil, nil, fmt.Errorf("gguf: a vocabulary of %d tokens; at most %d", m.Vocab, maxVocab)
	}
	spelled := make(map[string]bool, len(pieces))
	for _, p := range tokens[first:] {
		spelled[p] = true
	}
	for i := 0; len(tokens) < m.Vocab; i++ {
		if f := filler(i, m.Filler); !spelled[f] {
			tokens = append(tokens, f)
			types = append(types, 1)
		}
	}
	vocab := len(tokens)

	embdWidth := minEmbd
	for embdWidth < 2+len(pieces)+8 {
		embdWidth += minEmbd
	}
	ff := 2 * embdWidth
	rng := rand.New(rand.NewPCG(m.Seed, m.Seed^0x9e3779b97f4a7c15))
	random := func(n int, scale float32) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = (rng.Float32()*2 - 1) * scale
		}
		return w
	}
	ones := func(n int) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	embd := random(embdWidth*vocab, 0.1)
	out := random(embdWidth*vocab, 0.1)

	prior := make([]float32, vocab)
	for t, v := range m.Prior {
		if t >= 0 && t < vocab {
			prior[t] = v
		}
	}
	if !m.AllBytes {
		for b := 0x80; b < 0x100; b++ {
			if m.Prior == nil || m.Prior[ByteToken(byte(b))] == 0 {
				prior[ByteToken(byte(b))] = never
			}
		}
	}
	// The output norm scales the hidden state to an RMS of 1: a byte's
	// embedding, lead in its first dimension and small elsewhere, comes
	// out with sqrt(width) there; a piece's, with its own dimension as
	// large as lead, with sqrt(width/2) in both.
	byteNorm := float32(math.Sqrt(float64(embdWidth)))
	pieceNorm := float32(math.Sqrt(float64(embdWidth) / 2))
	for t := range vocab {
		embd[t*embdWidth] = lead
		out[t*embdWidth] = prior[t] / byteNorm
	}
	// The bigrams: a newline (the end of the prompt) leads to the first
	// piece, each piece to the next, the last to the end of the reply.
	// Each of these tokens has a dimension of its own, which only the
	// token it leads to reads.
	if len(pieces) > 0 {
		from := []int{ByteToken('\n')}
		for i := range pieces {
			from = append(from, first+i)
		}
		for i, t := range from {
			dim := 1 + i
			for d := 1; d < embdWidth; d++ {
				embd[t*embdWidth+d] *= 0.1
			}
			embd[t*embdWidth+dim] = identity
			for u := range vocab {
				out[u*embdWidth+dim] = 0
			}
			next := EOS
			switch {
			case i < len(pieces):
				next = first + i
			case m.Endless:
				continue
			}
			// The dimension outweighs the prior, which the norm of a
			// token with a dimension of its own scales down by √2.
			out[next*embdWidth+dim] = strength / pieceNorm
		}
	}

	w64 := uint64(embdWidth)
	square := func() []float32 { return random(embdWidth*embdWidth, 0.02) }
	tensors := []tensor{
		{"token_embd.weight", []uint64{w64, uint64(vocab)}, embd},
		{"output_norm.weight", []uint64{w64}, ones(embdWidth)},
		{"output.weight", []uint64{w64, uint64(vocab)}, out},
		{"blk.0.attn_norm.weight", []uint64{w64}, ones(embdWidth)},
		{"blk.0.attn_q.weight", []uint64{w64, w64}, square()},
		{"blk.0.attn_k.weight", []uint64{w64, w64}, square()},
		{"blk.0.attn_v.weight", []uint64{w64, w64}, square()},
		{"blk.0.attn_output.weight", []uint64{w64, w64}, square()},
		{"blk.0.ffn_norm.weight", []uint64{w64}, ones(embdWidth)},
		{"blk.0.ffn_gate.weight", []uint64{w64, uint64(ff)}, random(embdWidth*ff, 0.02)},
		{"blk.0.ffn_up.weight", []uint64{w64, uint64(ff)}, random(embdWidth*ff, 0.02)},
		{"blk.0.ffn_down.weight", []uint64{uint64(ff), w64}, random(embdWidth*ff, 0.02)},
	}
	name := m.Name
	if name == "" {
		name = "tiny random llama"
	}
	meta := []kv{
		{"general.architecture", "llama"}, {"general.name", name},
		{"llama.context_length", uint32(contextLength(m))}, {"llama.embedding_length", uint32(embdWidth)},
		{"llama.block_count", uint32(1)}, {"llama.feed_forward_length", uint32(ff)},
		{"llama.attention.head_count", uint32(heads)}, {"llama.attention.head_count_kv", uint32(heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)}, {"llama.rope.dimension_count", uint32(embdWidth / heads)},
	}
	return tokens, types, tensors, meta, nil
}

// Pieces returns the tokens a model spelling text writes it in: pieces of
// at least three bytes (unless text is shorter), each different from the
// others. It fails for a text that cannot be so cut.
func Pieces(text string) ([]string, error) {
	var pieces []string
	seen := map[string]bool{}
	for i := 0; i < len(text); {
		n := min(3, len(text)-i)
		for seen[text[i:i+n]] && i+n < len(text) {
			n++
		}
		if rest := len(text) - (i + n); rest > 0 && rest < 3 {
			n += rest // a short tail joins the piece before it
		}
		p := text[i : i+n]
		for seen[p] && len(pieces) > 0 {
			// The text ends with a piece already used: join it to the one before.
			last := pieces[len(pieces)-1]
			delete(seen, last)
			pieces = pieces[:len(pieces)-1]
			p = last + p
		}
		if seen[p] {
			return nil, fmt.Errorf("gguf: %q cannot be cut into pieces that differ", text)
		}
		seen[p] = true
		pieces = append(pieces, p)
		i += n
	}
	for _, p := range pieces {
		if strings.HasPrefix(p, "<0x") || p == "<unk>" || p == "<s>" || p == "</s>" {
			return nil, fmt.Errorf("gguf: the piece %q of the spelled text is the name of a token of its own", p)
		}
	}
	return pieces, nil
}

// filler returns the text of filler token i, n bytes long (at least 5):
// "q", four lowercase letters that tell it from the others, and those
// letters again to its length, so that no tokenizer produces it and it
// prints as it is.
func filler(i, n int) string {
	b := make([]byte, max(n, 5))
	b[0] = 'q'
	for d := 4; d > 0; d, i = d-1, i/26 {
		b[d] = 'a' + byte(i%26)
	}
	for j := 5; j < len(b); j++ {
		b[j] = b[1+(j-5)%4]
	}
	return string(b)
}

// maxVocab is the largest vocabulary filler tokens can pad.
const maxVocab = 400_000

// kv is a metadata key and its value.
type kv struct {
	key string
	val any
}

// encoder writes little-endian GGUF values, keeping the first error.
type encoder struct {
	w   io.Writer
	n   int
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	var n int
	n, e.err = e.w.Write(b)
	e.n += n
}

func (e *encoder) put(v any) {
	if e.err != nil {
		return
	}
	e.err = binary.Write(e.w, binary.LittleEndian, v)
	e.n += binary.Size(v)
}

func (e *encoder) str(s string) {
	e.put(uint64(len(s)))
	e.raw([]byte(s))
}

// GGUF's value types.
const (
	typeU32    = 4
	typeI32    = 5
	typeF32    = 6
	typeBool   = 7
	typeString = 8
	typeArray  = 9
)

func (e *encoder) kv(m kv) {
	e.str(m.key)
	switch v := m.val.(type) {
	case string:
		e.put(uint32(typeString))
		e.str(v)
	case uint32:
		e.put(uint32(typeU32))
		e.put(v)
	case float32:
		e.put(uint32(typeF32))
		e.put(v)
	case bool:
		e.put(uint32(typeBool))
		e.put(v)
	case []string:
		e.put(uint32(typeArray))
		e.put(uint32(typeString))
		e.put(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []float32:
		e.put(uint32(typeArray))
		e.put(uint32(typeF32))
		e.put(uint64(len(v)))
		e.put(v)
	case []int32:
		e.put(uint32(typeArray))
		e.put(uint32(typeI32))
		e.put(uint64(len(v)))
		e.put(v)
	default:
		e.err = errors.Join(e.err, fmt.Errorf("gguf: no type for %s's %T", m.key, v))
	}
}
