"""Trains the toy model on the transcripts gen writes, and exports it.

    /usr/bin/python3 testdata/toy/train.py --data /tmp/toy --out /tmp/toy/run

The model is a llama (RMSNorm, rotary positions on adjacent pairs as
llama.cpp's "normal" rope does, SwiGLU, untied output) over the byte
vocabulary of the project's GGUF writer, with one more token for the space,
which SentencePiece tokenizers write as U+2581: <unk>, <s>, </s>, the 256
bytes, and the space. It is written exactly as llama.cpp and Ollama compute
it, so that the weights need no conversion.

Every call of a family (a protocol and its tools) starts with the same
system part: a batch holds calls of one family, and the system part runs
once per batch, its keys and values shared by every call of it. The loss is
the reply's, its end included.

It writes, in --out: weights.safetensors (the tensors under their GGUF
names, the shape in the metadata), greedy.json (the greedy replies to the
probes, for the servers to match), and log.txt.
"""

import argparse
import json
import math
import os
import random
import struct
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

UNK, BOS, EOS = 0, 1, 2
SPACE = 259  # the token "\u2581", a space
VOCAB = 260


def tokenize(text):
    """Returns the tokens of text as llama.cpp's and Ollama's SentencePiece
    tokenizers make them with this vocabulary: a space is the token of
    U+2581, every other byte its byte token."""
    out = []
    for b in text.encode("utf-8"):
        out.append(SPACE if b == 0x20 else 3 + b)
    return out


def detokenize(tokens):
    """Returns the text of tokens, the end of text left out."""
    b = bytearray()
    for t in tokens:
        if t == SPACE:
            b.append(0x20)
        elif t >= 3:
            b.append(t - 3)
    return b.decode("utf-8", errors="replace")


class Config:
    def __init__(self, width=128, layers=4, heads=4, ff=352, context=2048, eps=1e-5, theta=10000.0):
        self.width, self.layers, self.heads, self.ff = width, layers, heads, ff
        self.context, self.eps, self.theta = context, eps, theta
        self.head = width // heads


class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, cos, sin):
    """Rotates the adjacent pairs (x0, x1), (x2, x3)… of each head, as
    llama.cpp's LLAMA_ROPE_TYPE_NORM does."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1).flatten(-2)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        d = c.width
        self.attn_norm = RMSNorm(d, c.eps)
        self.attn_q = nn.Linear(d, d, bias=False)
        self.attn_k = nn.Linear(d, d, bias=False)
        self.attn_v = nn.Linear(d, d, bias=False)
        self.attn_output = nn.Linear(d, d, bias=False)
        self.ffn_norm = RMSNorm(d, c.eps)
        self.ffn_gate = nn.Linear(d, c.ff, bias=False)
        self.ffn_up = nn.Linear(d, c.ff, bias=False)
        self.ffn_down = nn.Linear(c.ff, d, bias=False)

    def attend(self, x, cos, sin, past):
        """x: (B, T, d) at the positions of cos and sin; past: the keys and
        values before it, (1 or B, H, P, hd), or None. Returns the output
        and x's own keys and values."""
        c = self.c
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = self.attn_q(h).view(b, t, c.heads, c.head).transpose(1, 2)
        k = self.attn_k(h).view(b, t, c.heads, c.head).transpose(1, 2)
        v = self.attn_v(h).view(b, t, c.heads, c.head).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        keys, values = k, v
        if past is not None:
            pk, pv = past
            keys = torch.cat((pk.expand(b, -1, -1, -1), k), 2)
            values = torch.cat((pv.expand(b, -1, -1, -1), v), 2)
        n = keys.shape[2]
        q = q * (1.0 / math.sqrt(c.head))
        if t > 1:
            # The causal mask, added by the product itself.
            mask = torch.full((t, n), float("-inf")).triu(n - t + 1)
            scores = torch.baddbmm(mask, q.reshape(b * c.heads, t, c.head), keys.reshape(b * c.heads, n, c.head).transpose(1, 2))
            scores = scores.view(b, c.heads, t, n)
        else:
            scores = q @ keys.transpose(-1, -2)
        out = scores.softmax(-1) @ values
        x = x + self.attn_output(out.transpose(1, 2).reshape(b, t, c.width))
        return x, (k, v)

    def feed(self, x):
        h = self.ffn_norm(x)
        return x + self.ffn_down(F.silu(self.ffn_gate(h)) * self.ffn_up(h))


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.token_embd = nn.Embedding(VOCAB, c.width)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
        self.output_norm = RMSNorm(c.width, c.eps)
        self.output = nn.Linear(c.width, VOCAB, bias=False)
        inv = c.theta ** (-torch.arange(0, c.head, 2, dtype=torch.float64) / c.head)
        ang = torch.arange(c.context, dtype=torch.float64)[:, None] * inv[None]
        self.register_buffer("cos", ang.cos().float(), persistent=False)
        self.register_buffer("sin", ang.sin().float(), persistent=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
                if name.endswith(("attn_output.weight", "ffn_down.weight")):
                    p.data /= math.sqrt(2 * c.layers)

    def forward(self, prefix, suffix):
        """prefix: (1, P) tokens every row shares; suffix: (B, S) tokens
        after it. Returns the logits of the suffix's positions."""
        p = prefix.shape[1]
        xp, xs = self.token_embd(prefix), self.token_embd(suffix)
        cp, sp = self.cos[:p], self.sin[:p]
        cs, ss = self.cos[p:p + suffix.shape[1]], self.sin[p:p + suffix.shape[1]]
        for blk in self.blocks:
            xp, kv = blk.attend(xp, cp, sp, None)
            xp = blk.feed(xp)
            xs, _ = blk.attend(xs, cs, ss, kv)
            xs = blk.feed(xs)
        return self.output(self.output_norm(xs))

    @torch.no_grad()
    def greedy(self, tokens, limit):
        """Decodes greedily after tokens, with a cache of keys and values,
        until the end of text or limit tokens. Returns the tokens written
        and the smallest margin between the chosen logit and the next."""
        cache = [None] * len(self.blocks)
        x_tokens = torch.tensor([tokens])
        pos, out, margin = 0, [], float("inf")
        while True:
            t = x_tokens.shape[1]
            x = self.token_embd(x_tokens)
            cos, sin = self.cos[pos:pos + t], self.sin[pos:pos + t]
            for i, blk in enumerate(self.blocks):
                x, (k, v) = blk.attend(x, cos, sin, cache[i])
                x = blk.feed(x)
                cache[i] = (k, v) if cache[i] is None else (torch.cat((cache[i][0], k), 2), torch.cat((cache[i][1], v), 2))
            logits = self.output(self.output_norm(x[0, -1]))
            top = logits.topk(2)
            margin = min(margin, (top.values[0] - top.values[1]).item())
            nxt = top.indices[0].item()
            pos += t
            if nxt == EOS or len(out) >= limit:
                return out, margin
            out.append(nxt)
            x_tokens = torch.tensor([[nxt]])


def load(path, context):
    """Reads the calls of a JSONL file, grouped by the system part they
    share: {prefix: [(rest, reply), ...]}, in tokens. A call longer than
    the context, which the model cannot read whole, is left out; it
    returns how many were."""
    groups, dropped, sizes = {}, 0, {}
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            prefix = e["p"][: e["s"]]
            if prefix not in sizes:
                sizes[prefix] = 1 + len(tokenize(prefix))  # the start of text and the system part
            steps = [(a - e["s"], b - e["s"]) for a, b in e.get("t", [])]
            rest, reply = tokenize(e["p"][e["s"]:]), tokenize(e["r"]) + [EOS]
            if sizes[prefix] + len(rest) + len(reply) > context:
                dropped += 1
                continue
            groups.setdefault((e["f"], prefix), []).append((rest, reply, steps))
    return groups, dropped


def batches(groups, size, rng):
    """Yields (prefix, suffix, weights) batches forever: calls of one
    family, of similar lengths, in random order."""
    keys = sorted(groups)
    while True:
        plan = []
        for key in keys:
            calls = groups[key][:]
            rng.shuffle(calls)
            for i in range(0, len(calls), size * 32):
                chunk = sorted(calls[i:i + size * 32], key=lambda c: len(c[0]) + len(c[1]))
                plan += [(key, chunk[j:j + size]) for j in range(0, len(chunk), size)]
        rng.shuffle(plan)
        for (family, prefix), calls in plan:
            yield tensors(prefix, calls)


# STEP_WEIGHT is the weight of the loss on the earlier replies a prompt's
# scratchpad holds; the reply's is 1.
STEP_WEIGHT = 0.5


def tensors(prefix, calls):
    n = max(len(rest) + len(reply) for rest, reply, _ in calls)
    seq = torch.full((len(calls), n), EOS, dtype=torch.long)
    taught = torch.zeros((len(calls), n))
    for i, (rest, reply, steps) in enumerate(calls):
        row = rest + reply
        seq[i, : len(row)] = torch.tensor(row)
        taught[i, len(rest): len(row)] = 1
        for a, b in steps:
            taught[i, a:b] = STEP_WEIGHT
    # The prefix ends where the suffix begins: its last token predicts
    # the suffix's first, which is never a reply's, so it is left out.
    pre = torch.tensor([[BOS] + tokenize(prefix)])
    return pre, seq, taught


# COPY_ALPHABET is what the copying drills are written in: digits,
# letters, a space and the operators.
COPY_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz +-*/.,"


def copying(size, rng):
    """Yields batches of copying drills forever: "Repeat: S\n" and S again,
    S a random string of 4 to 16 characters, the loss on the copy. A model
    this small learns to copy from them in a few hundred steps, and from
    the transcripts alone in thousands: every transcript copies numbers
    from the question or an observation."""
    while True:
        calls = []
        for _ in range(size):
            text = "".join(rng.choice(COPY_ALPHABET) for _ in range(rng.randint(4, 16)))
            calls.append((tokenize("Repeat: " + text + "\n"), tokenize(text) + [EOS], []))
        yield tensors("", calls)


def step_loss(model, pre, seq, taught):
    logits = model(pre, seq[:, :-1])
    target, w = seq[:, 1:], taught[:, 1:]
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), target.reshape(-1), reduction="none")
    return (loss * w.reshape(-1)).sum() / w.sum()


def evaluate(model, calls, limit=160):
    """Greedy replies to held-back calls: the share that equal the taught
    reply."""
    right = 0
    for prompt, reply in calls:
        out, _ = model.greedy([BOS] + tokenize(prompt), limit)
        right += detokenize(out) == reply
    return right / max(len(calls), 1)


def gguf_tensors(model):
    """Returns the model's weights under their GGUF names."""
    names = {"token_embd.weight": model.token_embd.weight, "output_norm.weight": model.output_norm.weight,
             "output.weight": model.output.weight}
    for i, blk in enumerate(model.blocks):
        for n in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down"):
            names[f"blk.{i}.{n}.weight"] = getattr(blk, n).weight
    return names


def load_safetensors(path, model):
    """Reads weights save_safetensors wrote into model, whose shape must be
    theirs."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    with torch.no_grad():
        for name, t in gguf_tensors(model).items():
            e = header[name]
            if e["shape"] != list(t.shape):
                sys.exit(f"{path}: {name} has the shape {e['shape']}, the model {list(t.shape)}: give the same --width, --layers, --heads and --ff")
            lo, hi = e["data_offsets"]
            t.copy_(torch.frombuffer(bytearray(data[lo:hi]), dtype=torch.float32).view(t.shape))


def save_safetensors(path, model, meta):
    """Writes the tensors under their GGUF names, as float32, with the
    model's shape in the metadata."""
    names = gguf_tensors(model)
    header, blobs, offset = {"__metadata__": {k: str(v) for k, v in meta.items()}}, [], 0
    for name, t in names.items():
        data = t.detach().contiguous().float().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def export(model, c, held, args, folder=None):
    """Writes the weights and the greedy replies to the probes, the
    held-back calls of every family in a fixed order, to folder (--out
    unless given)."""
    folder = folder or args.out
    os.makedirs(folder, exist_ok=True)
    meta = {"width": c.width, "layers": c.layers, "heads": c.heads, "ff": c.ff, "context": c.context,
            "rms_eps": c.eps, "rope_theta": c.theta, "vocab": VOCAB}
    save_safetensors(os.path.join(folder, "weights.safetensors"), model, meta)
    probes, per = [], {}
    for f, p, r in held:
        if per.get(f, 0) < max(1, args.probes // 4):
            per[f] = per.get(f, 0) + 1
            probes.append((f, p))
    records = []
    for f, p in probes:
        out, margin = model.greedy([BOS] + tokenize(p), 200)
        records.append({"family": f, "prompt": p, "reply": detokenize(out), "tokens": len(out), "margin": round(margin, 4)})
    with open(os.path.join(folder, "greedy.json"), "w") as fh:
        json.dump({"note": "greedy replies of the toy model's training code to held-back prompts (raw, BOS added); "
                   "llama-server and Ollama must give the same", "probes": records}, fh, indent=1, ensure_ascii=False)
        fh.write("\n")


# MALLOC_ENV keeps glibc's malloc from giving the attention's large
# buffers back to the system after every use and faulting them in again:
# a third of the time of a step went to the kernel without it.
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(16 << 30), "MALLOC_TOP_PAD_": str(1 << 30)}


def main():
    if any(os.environ.get(k) != v for k, v in MALLOC_ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **MALLOC_ENV})
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="the folder gen wrote")
    ap.add_argument("--out", required=True, help="the folder to write the weights, the greedy replies and the log to")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--copy-steps", type=int, default=500, help="first steps on copying drills")
    ap.add_argument("--bare-steps", type=int, default=900,
                    help="then steps on text-protocol calls without their system part, which are cheaper and teach the same")
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=352)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (one is fastest on a busy machine)")
    ap.add_argument("--eval-every", type=int, default=300)
    ap.add_argument("--probes", type=int, default=12, help="held-back calls whose greedy replies are recorded")
    ap.add_argument("--stop-at", type=int, default=0,
                    help="end after this step of the schedule --steps plans (its learning rate then is not the last one)")
    ap.add_argument("--keep-every", type=int, default=0,
                    help="also export the weights and greedy replies every this many steps, to step-N in --out, "
                    "for checkpoints of a run (they change nothing of the training)")
    ap.add_argument("--init", help="weights (weights.safetensors) to go on training from, rather than random ones")
    ap.add_argument("--start", type=int, default=0,
                    help="begin at this step of the schedule, with --init the weights a run kept there (step-N); "
                    "the optimizer's moments and the order of the calls start afresh, so it is not the same run")
    ap.add_argument("--final-eval", action="store_true", help="at the end, answer every held-back call")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, "log.txt"), "a")

    def say(msg):
        print(msg, flush=True)
        log.write(msg + "\n")
        log.flush()

    c = Config(args.width, args.layers, args.heads, args.ff)
    model = Model(c)
    if args.init:
        load_safetensors(args.init, model)
    params = sum(p.numel() for p in model.parameters())
    groups, dropped = load(os.path.join(args.data, "train.jsonl"), c.context)
    held = []
    with open(os.path.join(args.data, "heldout-calls.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            held.append((e["f"], e["p"], e["r"]))
    n_calls = sum(len(v) for v in groups.values())
    n_tokens = sum(len(r) + len(s) for v in groups.values() for r, s, _ in v)
    say(f"{params} parameters; {n_calls} calls, {n_tokens} tokens after the system parts, in {len(groups)} families")
    if dropped:
        say(f"{dropped} calls longer than the context of {c.context} tokens left out")
    say(f"args: {vars(args)}")

    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": rest, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    warm = min(200, args.steps // 10 + 1)

    def lr_at(s):
        if s < warm:
            return args.lr * (s + 1) / warm
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, args.steps - warm))))

    heldcalls = [(p, r) for f, p, r in held]
    rng_eval = random.Random(args.seed + 1)
    sample = rng_eval.sample(heldcalls, min(48, len(heldcalls)))
    # The bare calls: the text protocol's, the system part left out (the
    # user's turn starts the prompt).
    bare = {}
    for (family, prefix), calls in groups.items():
        if family.startswith("text/"):
            bare.setdefault((family, "<|im_start|>user\n"), []).extend(calls)
    phases = [(args.copy_steps, "copying drills", lambda: copying(2 * args.batch, rng)),
              (args.copy_steps + args.bare_steps, "calls of the text protocol without their system part",
               lambda: batches(bare, args.batch, rng)),
              (args.steps, "calls with their system part", lambda: batches(groups, args.batch, rng))]
    start, cpu_start, tokens, avg = time.time(), time.process_time(), 0, None
    phase, it = None, None
    last = args.stop_at if 0 < args.stop_at < args.steps else args.steps
    for s in range(args.start, last):
        now = next(i for i, (end, _, _) in enumerate(phases) if s < end)
        if now != phase:
            phase, it, avg = now, phases[now][2](), None
            say(f"step {s}: {phases[now][1]} until step {phases[now][0]}")
        pre, seq, taught = next(it)
        for g in opt.param_groups:
            g["lr"] = lr_at(s)
        model.train()
        loss = step_loss(model, pre, seq, taught)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += seq.numel() + pre.numel()
        avg = loss.item() if avg is None else 0.98 * avg + 0.02 * loss.item()
        if (s + 1) % 50 == 0:
            el, cpu = time.time() - start, time.process_time() - cpu_start
            say(f"step {s + 1} loss {loss.item():.4f} avg {avg:.4f} lr {lr_at(s):.2e} {tokens / el:.0f} tok/s "
                f"{el / 60:.1f} min, {cpu / (s + 1 - args.start):.2f} s of CPU a step")
        if args.keep_every and (s + 1) % args.keep_every == 0:
            t, c0 = time.time(), time.process_time()
            model.eval()
            export(model, c, held, args, os.path.join(args.out, f"step-{s + 1}"))
            start += time.time() - t  # the export is not training time
            cpu_start += time.process_time() - c0
        if (s + 1) % args.eval_every == 0 or s + 1 == last:
            model.eval()
            t, c0 = time.time(), time.process_time()
            say(f"step {s + 1} held-back calls answered as taught: {evaluate(model, sample):.3f} ({time.time() - t:.0f} s)")
            export(model, c, held, args)
            start += time.time() - t  # the evaluation is not training time
            cpu_start += time.process_time() - c0
    train_minutes = (time.time() - start) / 60
    cpu_minutes = (time.process_time() - cpu_start) / 60
    say(f"trained {last - args.start} steps in {train_minutes:.1f} min ({cpu_minutes:.1f} min of CPU); "
        f"final loss (moving average) {avg:.4f}")
    if args.final_eval:
        acc = evaluate(model, heldcalls)
        say(f"all {len(heldcalls)} held-back calls answered as taught: {acc:.3f}")


if __name__ == "__main__":
    main()
