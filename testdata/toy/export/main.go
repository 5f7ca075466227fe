// Command export writes the toy model's GGUF file from the weights its
// training code saved, with the project's GGUF writer:
//
//	go run ./testdata/toy/export -weights /tmp/toy/run/weights.safetensors -out testdata/toy/toy.gguf
//
// and, with -from, the weights of a GGUF file it wrote back into a
// safetensors file, for the training code to go on from (its --init):
//
//	go run ./testdata/toy/export -from testdata/toy/toy.gguf -weights /tmp/toy/toy.safetensors
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
)

// Context is the context window the toy model declares, in tokens: its
// longest training prompts are about 1,900.
const Context = 2048

// Name is the toy model's general.name.
const Name = "react-agent toy: a tiny llama trained on synthetic arithmetic"

func main() {
	weights := flag.String("weights", "", "the safetensors file train.py wrote (or, with -from, the one to write)")
	out := flag.String("out", "", "the GGUF file to write")
	from := flag.String("from", "", "a GGUF file this command wrote, whose weights to write to -weights")
	name := flag.String("name", Name, "the model's name in the GGUF file")
	flag.Parse()
	if *from != "" {
		if *weights == "" || *out != "" {
			log.Fatal("export: -from reads a GGUF file and writes its weights to -weights, and takes no -out")
		}
		m, err := gguf.ReadFile(*from)
		if err != nil {
			log.Fatal(err)
		}
		if err := writeSafetensors(*weights, m.Weights); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("wrote %s: %s\n", *weights, m.Weights)
		return
	}
	if *weights == "" || *out == "" {
		log.Fatal("export: -weights and -out are needed")
	}
	w, err := gguf.ReadSafetensorsFile(*weights)
	if err != nil {
		log.Fatal(err)
	}
	m := gguf.Model{Name: *name, Template: gguf.ToolsTemplate, Context: Context, Weights: w}
	if err := gguf.WriteFile(*out, m); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s: %s\n", *out, w)
}

// writeSafetensors writes w's tensors as float32 under their GGUF names,
// with the shape of the model in the metadata, as train.py does.
func writeSafetensors(path string, w *gguf.Weights) error {
	names := make([]string, 0, len(w.Tensors))
	for n := range w.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	header := map[string]any{"__metadata__": map[string]string{
		"width": fmt.Sprint(w.Width), "layers": fmt.Sprint(w.Layers), "heads": fmt.Sprint(w.Heads), "ff": fmt.Sprint(w.FeedForward),
		"rms_eps": fmt.Sprint(w.RMSEpsilon), "rope_theta": fmt.Sprint(w.RopeBase), "vocab": fmt.Sprint(gguf.TrainedVocab)}}
	offset := 0
	for _, n := range names {
		t := w.Tensors[n]
		header[n] = map[string]any{"dtype": "F32", "shape": t.Shape, "data_offsets": []int{offset, offset + 4*len(t.Data)}}
		offset += 4 * len(t.Data)
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(f)
	binary.Write(b, binary.LittleEndian, uint64(len(h)))
	b.Write(h)
	for _, n := range names {
		binary.Write(b, binary.LittleEndian, w.Tensors[n].Data)
	}
	if err := b.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
