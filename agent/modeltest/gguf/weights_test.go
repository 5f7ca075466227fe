package gguf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// smallWeights returns weights of a small model whose values count up
// from seed, so that each tensor is told from the others.
func smallWeights(seed float32) *Weights {
	w := &Weights{Width: 8, Layers: 2, Heads: 2, FeedForward: 12, RMSEpsilon: 1e-5, RopeBase: 10000, Tensors: map[string]Tensor{}}
	v := seed
	for _, n := range w.tensorNames() {
		data := make([]float32, product(n.shape))
		for i := range data {
			data[i] = v
			v += 0.001
		}
		w.Tensors[n.name] = Tensor{Shape: n.shape, Data: data}
	}
	return w
}

func TestTrainedWeightsAreWrittenAsLlamaCppReadsThem(t *testing.T) {
	w := smallWeights(1)
	f := write(t, Model{Template: PlainTemplate, Context: 2048, Weights: w})
	tokens := f.meta["tokenizer.ggml.tokens"].([]any)
	types := f.meta["tokenizer.ggml.token_type"].([]any)
	if len(tokens) != TrainedVocab || tokens[Space] != "\u2581" || types[Space] != int32(1) || tokens[ByteToken(' ')] != "<0x20>" {
		t.Errorf("the vocabulary has %d tokens, the last %v of type %v", len(tokens), tokens[len(tokens)-1], types[len(types)-1])
	}
	for key, want := range map[string]any{
		"general.name": "trained llama", "llama.block_count": uint32(2), "llama.embedding_length": uint32(8),
		"llama.feed_forward_length": uint32(12), "llama.attention.head_count": uint32(2), "llama.attention.head_count_kv": uint32(2),
		"llama.rope.dimension_count": uint32(4), "llama.rope.freq_base": float32(10000), "llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.context_length": uint32(2048), "tokenizer.chat_template": PlainTemplate,
	} {
		if f.meta[key] != want {
			t.Errorf("%s = %v, want %v", key, f.meta[key], want)
		}
	}
	// GGUF gives a tensor's innermost dimension first: a linear layer of
	// PyTorch's shape [out, in] is [in, out], with its values as they are.
	if got := f.shapes["blk.1.ffn_down.weight"]; !reflect.DeepEqual(got, []uint64{12, 8}) {
		t.Errorf("ffn_down is %v, want [12 8]", got)
	}
	if got := f.shapes["token_embd.weight"]; !reflect.DeepEqual(got, []uint64{8, TrainedVocab}) {
		t.Errorf("the embeddings are %v", got)
	}
	if got, want := f.tensors["blk.0.attn_k.weight"], w.Tensors["blk.0.attn_k.weight"].Data; !reflect.DeepEqual(got, want) {
		t.Errorf("attn_k's values changed: %v…, want %v…", got[:3], want[:3])
	}
	if len(f.tensors) != 3+9*2 {
		t.Errorf("%d tensors, want %d", len(f.tensors), 3+9*2)
	}
}

func TestATrainedModelReadsBackAsItWasWritten(t *testing.T) {
	m := Model{Name: "toy", Template: ToolsTemplate, Context: 2048, Weights: smallWeights(-1)}
	var first bytes.Buffer
	if err := Write(&first, m); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("read back %+v, want %+v", back, m)
	}
	var again bytes.Buffer
	if err := Write(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), again.Bytes()) {
		t.Error("writing the model read back gives other bytes")
	}
	if _, err := Read(bytes.NewReader(write1(t, Model{Seed: 1}))); err == nil || !strings.Contains(err.Error(), "vocabulary") {
		t.Errorf("reading a random model: %v, want an error about its vocabulary", err)
	}
	if _, err := Read(strings.NewReader("GGUF\x02\x00\x00\x00")); err == nil {
		t.Error("reading a file of another version succeeded")
	}
	if _, err := Read(bytes.NewReader(first.Bytes()[:len(first.Bytes())-40])); err == nil {
		t.Error("reading a cut file succeeded")
	}
}

func write1(t *testing.T, m Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWeightsThatAreNoModelAreRefused(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"a missing tensor", func(m *Model) { delete(m.Weights.Tensors, "blk.1.attn_q.weight") }, "no tensor blk.1.attn_q.weight"},
		{"a tensor of another shape", func(m *Model) {
			m.Weights.Tensors["output.weight"] = Tensor{Shape: []int{8, TrainedVocab}, Data: make([]float32, 8*TrainedVocab)}
		}, "output.weight is [8 260]"},
		{"a tensor too short for its shape", func(m *Model) {
			m.Weights.Tensors["output_norm.weight"] = Tensor{Shape: []int{8}, Data: make([]float32, 7)}
		}, "holds 7 values"},
		{"a tensor of another model", func(m *Model) {
			m.Weights.Tensors["blk.2.attn_q.weight"] = Tensor{Shape: []int{8, 8}, Data: make([]float32, 64)}
		}, "blk.2.attn_q.weight"},
		{"a value that is not a number", func(m *Model) { m.Weights.Tensors["blk.0.ffn_up.weight"].Data[5] = float32(math.NaN()) }, "NaN"},
		{"heads of an odd size", func(m *Model) { m.Weights.Heads = 8 }, "even number"},
		{"no epsilon", func(m *Model) { m.Weights.RMSEpsilon = 0 }, "epsilon"},
		{"a spelled text", func(m *Model) { m.Spell = "hi" }, "random models"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Model{Weights: smallWeights(0)}
			tt.change(&m)
			err := Write(&bytes.Buffer{}, m)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// safetensors writes w as the training code does.
func safetensors(t *testing.T, w *Weights, dtype string) []byte {
	t.Helper()
	head := map[string]any{"__metadata__": map[string]string{"width": "8", "layers": "2", "heads": "2", "ff": "12",
		"rms_eps": "1e-05", "rope_theta": "10000.0", "vocab": "260"}}
	var data bytes.Buffer
	for _, n := range w.tensorNames() {
		tn := w.Tensors[n.name]
		at := data.Len()
		binary.Write(&data, binary.LittleEndian, tn.Data)
		head[n.name] = map[string]any{"dtype": dtype, "shape": tn.Shape, "data_offsets": []int{at, data.Len()}}
	}
	h, err := json.Marshal(head)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(h)))
	b.Write(h)
	b.Write(data.Bytes())
	return b.Bytes()
}

func TestReadSafetensors(t *testing.T) {
	w := smallWeights(2)
	got, err := ReadSafetensors(bytes.NewReader(safetensors(t, w, "F32")))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("read %v, want %v", got, w)
	}
	if got.String() != "2 layers of width 8, 2 heads, feed-forward 12: 5,288 parameters" {
		t.Errorf("String() = %q", got)
	}
	bad := map[string][]byte{
		"half-precision tensors":   safetensors(t, w, "F16"),
		"a cut file":               safetensors(t, w, "F32")[:500],
		"a header that is no JSON": append(binary.LittleEndian.AppendUint64(nil, 4), "{{{{"...),
		"a huge header":            binary.LittleEndian.AppendUint64(nil, 1<<40),
	}
	for name, b := range bad {
		if _, err := ReadSafetensors(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestTheToyModelIsWhatWriteWrites reads the toy model trained here
// (testdata/toy) and writes it again: the file in the repository is what
// the writer makes of its weights, byte for byte.
func TestTheToyModelIsWhatWriteWrites(t *testing.T) {
	file, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "toy", "toy.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if m.Weights.Width*m.Weights.Layers == 0 || m.Template != ToolsTemplate {
		t.Errorf("the toy model is %v, with another template", m.Weights)
	}
	if again := write1(t, m); !bytes.Equal(again, file) {
		t.Errorf("the writer makes %d other bytes of the toy model's weights than the %d of toy.gguf", len(again), len(file))
	}
}
