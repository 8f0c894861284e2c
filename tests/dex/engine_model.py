"""A model of the engine's attribute store, speaking through its own generated protobuf classes.

Usage: engine_model.py DEX_PB2_PY serve

One flow's attributes, kept while the process runs: each line of stdin is a command, answered by
one line of stdout: {"set": [request JSON text, ...]}, {"get": {"hydrate": bool}} (answers the
response's JSON text), {"rpc": {"changes": [...], "valueField": name or null}}.

`set` reads each SetAttributesRequest with google.protobuf.json_format.Parse into
dex_pb2.SetAttributesRequest (as the engine's CLI does) and applies its attributes in arrival
order: the last write of a key wins, a null value deletes it (SetAttributes has no
precondition). `get` answers GetAttributes with allKeys: a dex_pb2.GetAttributesResponse written
by json_format.MessageToJson, keys sorted; an object value whose payload is over the server's
blob threshold (1 KiB) comes back as a blob ID, as the engine answers it, unless --hydrate (what
a backend gets after LoadBlobs). `rpc` is a flow's locking RPC applying entry changes (the
seed's upsert pattern): per partition, under its lock (one call at a time here), read its JSON
(inside VALUE_FIELD, if the flow wraps it), set or delete the named entries, write it back, as an
EncodedObject built by dex_pb2. Each Value is kept as its serialized bytes.
"""

import base64
import hashlib
import importlib.util
import json
import sys
from urllib.parse import quote

from google.protobuf import json_format

BLOB_THRESHOLD = 1024


def load(path):
    spec = importlib.util.spec_from_file_location("dex_pb2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def set_attributes(dex_pb2, state, texts):
    for text in texts:
        request = json_format.Parse(text, dex_pb2.SetAttributesRequest())
        for a in request.attributes:
            if a.value.WhichOneof("kind") == "null_value":
                state.pop(a.key, None)
            else:
                state[a.key] = a.value.SerializeToString()


def get_attributes(dex_pb2, state, hydrate):
    response = dex_pb2.GetAttributesResponse()
    for key in sorted(state):
        kv = response.attributes.add()
        kv.key = key
        kv.value.ParseFromString(state[key])
        if not hydrate and kv.value.WhichOneof("kind") == "obj_value" and len(kv.value.obj_value.payload) > BLOB_THRESHOLD:
            blob = hashlib.sha256(kv.value.obj_value.payload).hexdigest()
            kv.value.Clear()
            kv.value.internal_blob_id_for_obj_value = "blob-" + blob
    return json_format.MessageToJson(response)


def apply_entry_changes(dex_pb2, state, changes, value_field):
    by_attribute = {}
    for c in changes:
        key = c["attributeMap"] + "/" + quote(c["instance"], safe="")
        by_attribute.setdefault(key, []).append(c)
    for key, group in by_attribute.items():
        value = dex_pb2.Value()
        if key in state:
            value.ParseFromString(state[key])
        held = json.loads(value.obj_value.payload) if value.WhichOneof("kind") == "obj_value" else {}
        entries = held.get(value_field, {}) if value_field else held
        for c in group:
            if c["value"] is None:
                entries.pop(c["key"], None)
            else:
                entries[c["key"]] = c["value"]
        if not entries:
            state.pop(key, None)
            continue
        payload = {value_field: entries} if value_field else entries
        written = dex_pb2.Value()
        written.obj_value.encoding = "json"
        written.obj_value.payload = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        state[key] = written.SerializeToString()


def main():
    dex_pb2 = load(sys.argv[1])
    state = {}
    for line in sys.stdin:
        command = json.loads(line)
        answer = None
        if "set" in command:
            set_attributes(dex_pb2, state, command["set"])
        elif "get" in command:
            answer = get_attributes(dex_pb2, state, command["get"]["hydrate"])
        elif "rpc" in command:
            apply_entry_changes(dex_pb2, state, command["rpc"]["changes"], command["rpc"]["valueField"])
        else:
            raise SystemExit("unknown command " + line)
        sys.stdout.write(json.dumps({"answer": answer}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
