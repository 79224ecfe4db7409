# Writes src/search/embedding/golden.json: for each of its texts, the token ids
# (without special tokens) and the vector that Model2Vec's own Python package
# gives with a model's upstream float32 files, which the Rust test
# `the_packaged_model_embeds_as_model2vec_does` holds the model package's file to.
#
#   python3 -m venv venv && venv/bin/pip install model2vec==0.10.0
#   HF_HUB_OFFLINE=1 venv/bin/python scripts/model/golden.py <dir with config.json,
#       tokenizer.json and model.safetensors> <model name> src/search/embedding/golden.json
#
# The texts are those already in the output file (it is read first, then rewritten).

import json
import sys

import model2vec
from model2vec import StaticModel

source, name, path = sys.argv[1:4]
with open(path, encoding="utf-8") as f:
    texts = [case["text"] for case in json.load(f)["cases"]]
model = StaticModel.from_pretrained(source)
vectors = model.encode(texts)
cases = [
    {
        "text": text,
        "ids": model.tokenizer.encode(text, add_special_tokens=False).ids,
        "vector": [round(float(x), 6) for x in vector],
    }
    for text, vector in zip(texts, vectors)
]
about = (
    f"model2vec {model2vec.__version__} (PyPI), StaticModel.from_pretrained on the upstream {name} files "
    "(float32), encode() and its tokenizer's ids without special tokens"
)
lines = ["{", f'  "source": {json.dumps(about, ensure_ascii=False)},', '  "cases": [']
lines.append(",\n".join("    " + json.dumps(case, ensure_ascii=False) for case in cases))
lines += ["  ]", "}"]
with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
print(f"{len(cases)} texts, {len(vectors[0])} dimensions")
