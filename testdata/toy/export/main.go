// Command export writes the toy model's GGUF file from the weights its
// training code saved, with the project's GGUF writer:
//
//	go run ./testdata/toy/export -weights /tmp/toy/run/weights.safetensors -out testdata/toy/toy.gguf
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
)

// Context is the context window the toy model declares, in tokens: its
// longest training prompts are about 1,300.
const Context = 2048

// Name is the toy model's general.name.
const Name = "react-agent toy: a tiny llama trained on synthetic arithmetic"

func main() {
	weights := flag.String("weights", "", "the safetensors file train.py wrote")
	out := flag.String("out", "", "the GGUF file to write")
	flag.Parse()
	if *weights == "" || *out == "" {
		log.Fatal("export: -weights and -out are needed")
	}
	w, err := gguf.ReadSafetensorsFile(*weights)
	if err != nil {
		log.Fatal(err)
	}
	m := gguf.Model{Name: Name, Template: gguf.ToolsTemplate, Context: Context, Weights: w}
	if err := gguf.WriteFile(*out, m); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s: %s\n", *out, w)
}
