// Samples under GBNF grammars with llama.cpp, as shipped prebuilt by
// node-llama-cpp, on a model file the Go test writes, and checks texts
// against grammars byte by byte. It reads one JSON request on stdin:
//   {"model": PATH, "samples": N, "maxTokens": N, "seed": N,
//    "grammars": [{"name", "grammar"}], "texts": [{"name", "grammar", "text"}],
//    "free": N}
// and writes one JSON line a result on stdout: {"name", "text", "ms"} for
// each sample (and for each of "free" samples without a grammar), and
// {"name", "text", "accepted", "complete"} for each text: whether llama.cpp's
// grammar took each of its bytes, and then allowed the end of the reply.
// The model's vocabulary must be <unk> <s> </s> and the 256 byte tokens.
import {getLlama, LlamaCompletion, LlamaGrammarEvaluationState} from "node-llama-cpp";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const req = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath: req.model, gpuLayers: 0});
const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");

for (const {name, grammar, text} of req.texts ?? []) {
  const state = new LlamaGrammarEvaluationState({model, grammar: await llama.createGrammar({grammar})});
  const sampler = llama._bindings.AddonSampler;
  let accepted = true;
  for (const b of Buffer.from(text, "utf8")) {
    const token = 3 + b;
    if (!sampler.canBeNextTokenForGrammarEvaluationState(state._state, token)) {
      accepted = false;
      break;
    }
    sampler.acceptGrammarEvaluationStateToken(state._state, token);
  }
  const complete = accepted && sampler.canBeNextTokenForGrammarEvaluationState(state._state, 2);
  out({name, text, accepted, complete});
}

if ((req.grammars ?? []).length > 0 || req.free > 0) {
  const context = await model.createContext({contextSize: 1024, threads: 2});
  const completion = new LlamaCompletion({contextSequence: context.getSequence()});
  const sample = async (name, grammar, i) => {
    const start = performance.now();
    const text = await completion.generateCompletion("Question: ", {
      grammar, maxTokens: req.maxTokens, temperature: 1, seed: req.seed + i,
    });
    out({name, text, ms: performance.now() - start});
  };
  for (const {name, grammar} of req.grammars ?? []) {
    const g = await llama.createGrammar({grammar});
    for (let i = 0; i < req.samples; i++) await sample(name, g, i);
  }
  for (let i = 0; i < (req.free ?? 0); i++) await sample("free", undefined, i);
}
await llama.dispose();
