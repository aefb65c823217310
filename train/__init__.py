"""Training pipeline for toolscout's tool-retrieval model (a fine-tuned all-MiniLM-L6-v2).

One command runs it end to end (``python -m train run --data ../shared/tooldata --out build/model``):
load and weight the sources (`_data`), mine hard negatives with toolscout's lexical engine and drop
likely false negatives (`_negatives`), fine-tune the bi-encoder (`_fit`), pick the best checkpoint
on the dev split and BFCL's tuning categories (`_select`), export ONNX and quantize it int8 the way
the packaged model is stored (`_export`). The data is read from disk and never part of the repo.
"""
