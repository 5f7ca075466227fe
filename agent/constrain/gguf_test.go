package constrain

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

// The shape of the tiny model: one block, 32-wide embeddings, a vocabulary
// of <unk>, <s>, </s> and the 256 byte tokens, so that every text is
// written byte by byte.
const (
	tinyEmbd  = 32
	tinyFF    = 64
	tinyVocab = 3 + 256
	tinyEOS   = 2
)

// byteToken is the token of byte b in the tiny model's vocabulary.
func byteToken(b byte) int { return 3 + int(b) }

// writeTinyLlama writes a llama-architecture GGUF model with random
// weights to path. Its output layer reads a fixed bias off the first
// dimension of the hidden state, which its embeddings keep large: prior
// gives that bias, a logit, for some tokens (the others have 0), so that
// samples end within a few dozen tokens. The weights know nothing of any
// grammar: what a sample fits comes from the grammar alone.
func writeTinyLlama(path string, seed uint64, prior map[int]float32) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
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
	embd := random(tinyEmbd*tinyVocab, 0.1)
	out := random(tinyEmbd*tinyVocab, 0.1)
	const lead = 10 // the first dimension of every embedding
	norm := float32(lead / math.Sqrt(lead*lead/float64(tinyEmbd)))
	for t := range tinyVocab {
		embd[t*tinyEmbd] = lead
		out[t*tinyEmbd] = prior[t] / norm
	}
	type tensor struct {
		name string
		ne   []uint64
		data []float32
	}
	square := func() []float32 { return random(tinyEmbd*tinyEmbd, 0.02) }
	tensors := []tensor{
		{"token_embd.weight", []uint64{tinyEmbd, tinyVocab}, embd},
		{"output_norm.weight", []uint64{tinyEmbd}, ones(tinyEmbd)},
		{"output.weight", []uint64{tinyEmbd, tinyVocab}, out},
		{"blk.0.attn_norm.weight", []uint64{tinyEmbd}, ones(tinyEmbd)},
		{"blk.0.attn_q.weight", []uint64{tinyEmbd, tinyEmbd}, square()},
		{"blk.0.attn_k.weight", []uint64{tinyEmbd, tinyEmbd}, square()},
		{"blk.0.attn_v.weight", []uint64{tinyEmbd, tinyEmbd}, square()},
		{"blk.0.attn_output.weight", []uint64{tinyEmbd, tinyEmbd}, square()},
		{"blk.0.ffn_norm.weight", []uint64{tinyEmbd}, ones(tinyEmbd)},
		{"blk.0.ffn_gate.weight", []uint64{tinyEmbd, tinyFF}, random(tinyEmbd*tinyFF, 0.02)},
		{"blk.0.ffn_up.weight", []uint64{tinyEmbd, tinyFF}, random(tinyEmbd*tinyFF, 0.02)},
		{"blk.0.ffn_down.weight", []uint64{tinyFF, tinyEmbd}, random(tinyEmbd*tinyFF, 0.02)},
	}
	tokens := []string{"<unk>", "<s>", "</s>"}
	types := []int32{2, 3, 3} // unknown, control, control; then bytes
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, 6)
	}
	scores := make([]float32, tinyVocab)

	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	// GGUF value types.
	const u32, i32, f32, boolean, gstring, array = 4, 5, 6, 7, 8, 9
	type kv struct {
		key string
		val any
	}
	meta := []kv{
		{"general.architecture", "llama"}, {"general.name", "tiny random llama"},
		{"llama.context_length", uint32(1024)}, {"llama.embedding_length", uint32(tinyEmbd)},
		{"llama.block_count", uint32(1)}, {"llama.feed_forward_length", uint32(tinyFF)},
		{"llama.attention.head_count", uint32(2)}, {"llama.attention.head_count_kv", uint32(2)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)}, {"llama.rope.dimension_count", uint32(tinyEmbd / 2)},
		{"tokenizer.ggml.model", "llama"}, {"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores}, {"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(0)}, {"tokenizer.ggml.bos_token_id", uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(tinyEOS)}, {"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false}, {"tokenizer.ggml.add_space_prefix", false},
	}
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(len(tensors)))
	w(uint64(len(meta)))
	for _, m := range meta {
		str(m.key)
		switch v := m.val.(type) {
		case string:
			w(uint32(gstring))
			str(v)
		case uint32:
			w(uint32(u32))
			w(v)
		case float32:
			w(uint32(f32))
			w(v)
		case bool:
			w(uint32(boolean))
			w(v)
		case []string:
			w(uint32(array))
			w(uint32(gstring))
			w(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []float32:
			w(uint32(array))
			w(uint32(f32))
			w(uint64(len(v)))
			w(v)
		case []int32:
			w(uint32(array))
			w(uint32(i32))
			w(uint64(len(v)))
			w(v)
		}
	}
	const align = 32
	pad := func(n int) int { return (n + align - 1) / align * align }
	offset := 0
	for _, t := range tensors {
		str(t.name)
		w(uint32(len(t.ne)))
		w(t.ne)
		w(uint32(0)) // F32
		w(uint64(offset))
		offset = pad(offset + 4*len(t.data))
	}
	b.Write(make([]byte, pad(b.Len())-b.Len()))
	for _, t := range tensors {
		start := b.Len()
		w(t.data)
		b.Write(make([]byte, pad(b.Len()-start)-(b.Len()-start)))
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
