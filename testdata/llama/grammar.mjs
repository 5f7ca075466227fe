// Compiles GBNF grammars with llama.cpp's own grammar parser, as shipped
// prebuilt by node-llama-cpp: no model is needed. It reads a JSON list of
// {"name", "grammar"} on stdin and writes one JSON line a grammar on
// stdout, {"name", "ok"} or {"name", "ok": false, "error"}. llama.cpp
// prints the reason a grammar fails on stderr; a line "== NAME" there
// before each grammar says whose it is.
import {getLlama} from "node-llama-cpp";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const grammars = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
for (const {name, grammar} of grammars) {
  process.stderr.write(`== ${name}\n`);
  try {
    await llama.createGrammar({grammar});
    process.stdout.write(JSON.stringify({name, ok: true}) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({name, ok: false, error: String(e && e.message || e)}) + "\n");
  }
}
await llama.dispose();
