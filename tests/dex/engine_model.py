"""A model of the engine's attribute store, speaking through its own generated protobuf classes.

Usage: engine_model.py DEX_PB2_PY STATE.json set REQUEST.json...
       engine_model.py DEX_PB2_PY STATE.json get [--hydrate]
       engine_model.py DEX_PB2_PY STATE.json rpc CHANGES.json [VALUE_FIELD]

`set` reads each SetAttributesRequest with google.protobuf.json_format.Parse into
dex_pb2.SetAttributesRequest (as the engine's CLI does) and applies its attributes in arrival
order: the last write of a key wins, a null value deletes it (SetAttributes has no
precondition). `get` answers GetAttributes with allKeys: a dex_pb2.GetAttributesResponse written
by json_format.MessageToJson, keys sorted; an object value whose payload is over the server's
blob threshold (1 KiB) comes back as a blob ID, as the engine answers it, unless --hydrate (what
a backend gets after LoadBlobs). `rpc` is a flow's locking RPC applying entry changes (the
seed's upsert pattern): per partition, under its lock (one call at a time here), read its JSON
(inside VALUE_FIELD, if the flow wraps it), set or delete the named entries, write it back, as an
EncodedObject built by dex_pb2. The state file keeps each Value as its serialized bytes.
"""

import base64
import hashlib
import importlib.util
import json
import os
import sys
from urllib.parse import quote

from google.protobuf import json_format

BLOB_THRESHOLD = 1024


def load(path):
    spec = importlib.util.spec_from_file_location("dex_pb2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_state(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {k: base64.b64decode(v) for k, v in json.load(f).items()}


def write_state(path, state):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({k: base64.b64encode(v).decode("ascii") for k, v in state.items()}, f)


def set_attributes(dex_pb2, state, files):
    for path in files:
        with open(path, encoding="utf-8") as f:
            request = json_format.Parse(f.read(), dex_pb2.SetAttributesRequest())
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


def apply_entry_changes(dex_pb2, state, path, value_field):
    with open(path, encoding="utf-8") as f:
        changes = json.load(f)
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
    path, command = sys.argv[2], sys.argv[3]
    state = read_state(path)
    if command == "set":
        set_attributes(dex_pb2, state, sys.argv[4:])
        write_state(path, state)
    elif command == "rpc":
        apply_entry_changes(dex_pb2, state, sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
        write_state(path, state)
    elif command == "get":
        print(get_attributes(dex_pb2, state, "--hydrate" in sys.argv[4:]))
    else:
        raise SystemExit("unknown command " + command)


if __name__ == "__main__":
    main()
