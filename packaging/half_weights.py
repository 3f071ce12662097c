"""Store an ONNX model's float weights at half precision, computing in float32 as before.

Each float32 initializer of at least MIN_ELEMENTS values is replaced by a float16 copy and a `Cast` back to
float32 under the original name, so every operator still sees float32 (onnxruntime folds the casts when it
builds the session: no cost per image). The PP-OCR models are about half their size; what changes is the
rounding of each weight to 11 significant bits (bench/ocr_weights.py measures what that does to OCR).
Build time only (`trove.spec`); needs the `onnx` package.

    python packaging/half_weights.py IN.onnx OUT.onnx
"""

from __future__ import annotations

import sys
from pathlib import Path

MIN_ELEMENTS = 256  # small tensors (biases, scales) stay float32: nothing to save, and they are the sensitive ones


def halve(source: Path, target: Path) -> tuple[int, int]:
    """Write `source` with half-precision weights to `target`; returns (bytes before, bytes after)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    casts = []
    for init in graph.initializer:
        if init.data_type != TensorProto.FLOAT:
            continue
        values = numpy_helper.to_array(init)
        if values.size < MIN_ELEMENTS or np.abs(values).max(initial=0) >= 65504:  # float16's largest finite
            continue
        name = init.name
        half = numpy_helper.from_array(values.astype(np.float16), name=f"{name}__half")
        init.CopyFrom(half)
        casts.append(helper.make_node("Cast", [half.name], [name], to=TensorProto.FLOAT, name=f"{name}__cast"))
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)  # the casts first: the graph stays topologically sorted
    onnx.checker.check_model(model)
    target.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(target))
    return source.stat().st_size, target.stat().st_size


if __name__ == "__main__":
    before, after = halve(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{sys.argv[1]}: {before / 2**20:.1f} -> {after / 2**20:.1f} MiB")
