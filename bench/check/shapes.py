#!/usr/bin/env python3
"""Odd shapes of memory-bank content, one repository each, for bench/check/shapes.sh.

Each shape is about SIZE bytes (default 1 MB) in one note: what a new user's bank can hold
that prose does not show (minified JSON on one line, a hex dump, keyword-dense config,
thousands of curl lines with passwords, unterminated key headers, JWT-like ids, CJK prose,
one huge line with a token at its end, thousands of tiny notes).
"""
import base64
import json
import os
import random
import string
import sys

root, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
rnd = random.Random(7)


def rid(k):
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(k))


def bank(name):
    d = os.path.join(root, name, "memory-bank")
    os.makedirs(d, exist_ok=True)
    os.system("git -C %s init -q" % os.path.dirname(d))
    return d


def fill(make):
    out, n = [], 0
    while n < size:
        s = make()
        out.append(s)
        n += len(s)
    return "".join(out)[:size]


shapes = {
    "minified-json": lambda: json.dumps([{"id": rid(24), "name": rid(8), "token_hash": rid(40), "v": rnd.random()}
                                         for _ in range(size // 90 + 1)], separators=(",", ":"))[:size],
    "hex-line": lambda: rnd.randbytes(size // 2).hex(),
    "keyword-config": lambda: fill(lambda: '%s_%s = "%s"\n' % (
        rnd.choice(["password", "secret", "token", "api_key", "aws", "github", "slack", "stripe", "private_key", "auth"]),
        rid(4), rid(rnd.choice([8, 20, 32, 40])))),
    "curl-lines": lambda: fill(lambda: "curl -u %s:%s https://%s.example.com/api\n" % (rid(8), rid(16), rid(6))),
    "key-headers": lambda: fill(lambda: "-----BEGIN RSA PRIVATE KEY-----\n%s\n" % base64.b64encode(rnd.randbytes(600)).decode()),
    "jwt-like": lambda: fill(lambda: "eyJ%s.eyJ%s.%s\n" % (rid(30), rid(60), rid(43))),
    "cjk-prose": lambda: fill(lambda: "".join(chr(rnd.randint(0x4E00, 0x9FFF)) for _ in range(rnd.randint(20, 100))) + "\n"),
    "huge-line": lambda: "a" * size + " ghp_" + rid(36) + "\n",
}
for name, make in shapes.items():
    with open(os.path.join(bank(name), "note.md"), "w") as f:
        f.write(make())
d = bank("tiny-notes")
for i in range(max(size // 200, 10)):
    with open(os.path.join(d, "n%05d.md" % i), "w") as f:
        f.write("# note %d\nsee the build key %s\n" % (i, rid(16)))
