"""Parses SetAttributes requests with the engine's own generated classes, as its CLI does.

Usage: parse_requests.py DEX_PB2_PY REQUEST.json...

Each file is read by google.protobuf.json_format.Parse into dex_pb2.SetAttributesRequest (an
unknown field or a wrong type fails it), and printed back as one JSON line of what the engine
would store: the flow, the request ID and, per attribute, its key, which value it holds and, for
an object value, its encoding and its payload as text.
"""

import importlib.util
import json
import sys

from google.protobuf import json_format


def load(path):
    spec = importlib.util.spec_from_file_location("dex_pb2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    dex_pb2 = load(sys.argv[1])
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            request = json_format.Parse(f.read(), dex_pb2.SetAttributesRequest())
        attributes = []
        for a in request.attributes:
            kind = a.value.WhichOneof("kind")
            written = {"key": a.key, "kind": kind}
            if kind == "obj_value":
                written["encoding"] = a.value.obj_value.encoding
                written["payload"] = a.value.obj_value.payload.decode("utf-8")
            attributes.append(written)
        print(json.dumps({"flowId": request.flow_id, "runId": request.run_id, "requestId": request.request_id,
                          "attributes": attributes}))


if __name__ == "__main__":
    main()
