#!/usr/bin/env bash
# Command-line checks of a built react-agent binary: exit codes and output
# of each command, offline. Usage: .ci/cli.sh path/to/react-agent
set -uo pipefail
bin=$1
cd "$(dirname "$0")/.."
passed=0 failed=0

# expect NAME WANT_STATUS WANT_SUBSTRING -- command...
# Runs the command (stdin from $input when set) and checks its exit status
# and that stdout+stderr contain WANT_SUBSTRING.
expect() {
  local name=$1 want_status=$2 want=$3
  shift 4
  local out status
  out=$("$@" <"${input:-/dev/null}" 2>&1)
  status=$?
  if [ "$status" -eq "$want_status" ] && [[ "$out" == *"$want"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: exit %s (want %s), output:\n%s\n(want it to contain: %s)\n\n' "$name" "$status" "$want_status" "$out" "$want"
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'Thought: add\nAction: Calculator\nAction Input: 2+2' >"$tmp/action.txt"
input=$tmp/action.txt expect "parse prints an action" 0 \
  '{"kind":"action","thought":"add","action":"calculator","args":{"expression":"2+2"}}' -- "$bin" parse

printf 'Thought：好\nFinal Answer：四' >"$tmp/final.txt"
input=$tmp/final.txt expect "parse prints a final answer" 0 \
  '{"kind":"final","thought":"好","final_answer":"四"}' -- "$bin" parse

printf 'Thought: hmm' >"$tmp/error.txt"
input=$tmp/error.txt expect "parse exits 1 on an error" 1 '{"kind":"error","error":"Your reply has a Thought' -- "$bin" parse

printf 'Action: web_search\nAction Input: go\n' >"$tmp/shell.txt"
input=$tmp/shell.txt expect "parse knows the built-in tools" 0 '"args":{"query":"go"}' -- "$bin" parse

printf '%s\n' '{"id":1,"text":"Final Answer: 4"}' '{"id":"b","text":"Action: web search[go]"}' 'not json' '{"id":3,"text":""}' >"$tmp/many.jsonl"
input=$tmp/many.jsonl expect "parse --jsonl keeps ids" 0 '{"id":"b","kind":"action","thought":"","action":"web_search","args":{"query":"go"}}' -- "$bin" parse --jsonl
input=$tmp/many.jsonl expect "parse --jsonl reports a bad line and goes on" 0 'input line 3 is not a JSON object' -- "$bin" parse --jsonl
input=$tmp/many.jsonl expect "parse --jsonl reports an empty reply" 0 '{"id":3,"kind":"error","error":"Your reply was empty.' -- "$bin" parse --jsonl
input=$tmp/many.jsonl expect "parse --timing adds parse_ns" 0 '"parse_ns":' -- "$bin" parse --jsonl --timing --repeat 3
expect "parse rejects an unknown flag" 2 'unknown flag: --nope' -- "$bin" parse --nope
expect "parse --help shows the flags" 0 '--jsonl' -- "$bin" parse --help

expect "tools lists the built-in tools" 0 'web_search' -- "$bin" tools
expect "tools shows arguments" 0 'expression  string  required, primary' -- "$bin" tools
expect "tools shows shell with --allow-shell" 0 'shell' -- "$bin" tools --allow-shell
expect "tool runs the calculator on raw input" 0 '256' -- "$bin" tool calculator '2**10 / 4'
expect "tool takes a JSON object" 0 '7' -- "$bin" tool Calculator '{"expression": "3+4"}'
expect "tool reports a tool error with exit 1" 1 'division by zero' -- "$bin" tool calculator '1/0'
expect "tool names the flag that enables shell" 1 'pass --allow-shell' -- "$bin" tool shell 'echo hi'
expect "tool refuses shell with no terminal and no --yes" 1 'pass --yes' -- "$bin" tool --allow-shell shell 'echo hi'
expect "tool runs shell with --yes" 0 'hi' -- "$bin" tool --allow-shell --yes shell 'echo hi'
expect "tool lists the tools for an unknown one" 1 'available tools: calculator' -- "$bin" tool nope x
expect "tool refuses loopback addresses" 1 '127.0.0.1' -- "$bin" tool http_request 'http://127.0.0.1:1/'
expect "tool needs a name and an input" 2 'tool takes a tool name and its input' -- "$bin" tool calculator

demo=testdata/agent/demo.jsonl
expect "ask answers offline from the demo cassette" 0 '17 * 23 + 4 = 395' -- "$bin" --provider replay --replay "$demo" -q "What is 17 * 23 + 4?"
expect "ask traces the steps with real tools" 0 '[2] Observation: 395' -- "$bin" ask --provider replay --replay "$demo" "What is 17 * 23 + 4?"
expect "ask --json gives the stop reason" 0 '"stop_reason": "final_answer"' -- "$bin" ask --provider replay --replay "$demo" -q --json "What is 17 * 23 + 4?"
printf 'What is 17 * 23 + 4?\n' >"$tmp/question.txt"
input=$tmp/question.txt expect "ask reads the question from stdin" 0 '= 395' -- "$bin" ask --provider replay --replay "$demo" -q
input=$tmp/question.txt expect "chat answers a line" 0 '= 395' -- "$bin" chat --provider replay --replay "$demo" -q
expect "ask explains an unreachable server" 1 'cannot reach Ollama at http://127.0.0.1:9' -- "$bin" ask -q --base-url http://127.0.0.1:9 "hi"
expect "ask explains a missing key" 1 'set OPENAI_API_KEY or pass --api-key' -- env -u OPENAI_API_KEY "$bin" ask --provider openai "hi"
expect "ask rejects an unknown provider" 1 'unknown provider "nope"' -- "$bin" --provider nope "hi"
expect "ask needs a question" 2 'no question' -- "$bin" ask

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
