# The backend's read for a pull (docs/sync.md, "The order of a sync"): every attribute of a flow
# from GetAttributes, each value the engine answered as a blob ID (over its blob threshold) loaded
# with LoadBlobs, and the response as protobuf JSON for the page's importDexAttributes. The SDK's
# clients have no raw attribute read, so this calls the generated gRPC stub, as the SDK's own
# value hydrator does for LoadBlobs.

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import grpc
from google.protobuf import json_format

from dex.dexpb import dex_pb2 as pb
from dex.dexpb import dex_pb2_grpc

# Each blob-ID arm of a Value and the arm its loaded value must have.
CONCRETE_KIND_OF_BLOB = {
    "internal_blob_id_for_string_value": "string_value",
    "internal_blob_id_for_obj_value": "obj_value",
}
# Blobs per LoadBlobs call: a partition can be large, and gRPC refuses an answer over 4 MiB by
# default (the channel's grpc.max_receive_message_length).
LOAD_BLOBS_BATCH = 16


class FlowAttributeService(Protocol):
    """The two FlowService methods a pull calls; the generated FlowServiceStub has them."""

    def GetAttributes(
        self, request: pb.GetAttributesRequest, timeout: float | None = None
    ) -> pb.GetAttributesResponse: ...

    def LoadBlobs(
        self, request: pb.LoadBlobsRequest, timeout: float | None = None
    ) -> pb.LoadBlobsResponse: ...


def flow_service(channel: grpc.Channel) -> FlowAttributeService:
    """The generated stub on a channel (grpc.insecure_channel("127.0.0.1:8801"), or a secure one)."""
    # The generated stub's constructor has no annotations (the SDK's Client ignores the same).
    stub: FlowAttributeService = dex_pb2_grpc.FlowServiceStub(channel)  # type: ignore[no-untyped-call]
    return stub


def pull_flow_attributes(
    service: FlowAttributeService,
    flow_id: str,
    *,
    timeout_seconds: float = 30.0,
) -> str:
    """GetAttributes(flow_id, all_keys=True) with every blob loaded, as protobuf JSON."""
    response = service.GetAttributes(
        pb.GetAttributesRequest(flow_id=flow_id, all_keys=True), timeout=timeout_seconds
    )
    load_blobs(service, flow_id, [kv.value for kv in response.attributes], timeout_seconds)
    return json_format.MessageToJson(response)


def load_blobs(
    service: FlowAttributeService,
    flow_id: str,
    values: Sequence[pb.Value],
    timeout_seconds: float,
) -> None:
    """Replace, in place, each value that is a blob ID by the value LoadBlobs gives for it."""
    # One load per blob: the same blob ID can stand for several values.
    blobs: dict[tuple[str, str], list[pb.Value]] = {}
    for value in values:
        key = blob_key(value)
        if key is not None:
            blobs.setdefault(key, []).append(value)
    pending = list(blobs.items())
    for start in range(0, len(pending), LOAD_BLOBS_BATCH):
        batch = pending[start : start + LOAD_BLOBS_BATCH]
        request = pb.LoadBlobsRequest(
            entries=[
                pb.LoadBlobRequestEntry(flow_id=flow_id, blob_value=same[0])
                for _, same in batch
            ]
        )
        loaded = service.LoadBlobs(request, timeout=timeout_seconds).values
        for (kind, blob_id), same in batch:
            # The engine leaves a blob it cannot find out of the answer: never pass a blob ID on.
            if blob_id not in loaded:
                raise LookupError(f"LoadBlobs did not answer blob {blob_id} of flow {flow_id}")
            concrete = loaded[blob_id]
            concrete_kind: str | None = concrete.WhichOneof("kind")
            if concrete_kind != CONCRETE_KIND_OF_BLOB[kind]:
                raise ValueError(f"blob {blob_id} loaded as {concrete_kind}")
            for value in same:
                value.CopyFrom(concrete)


def blob_key(value: pb.Value) -> tuple[str, str] | None:
    """The blob-ID arm of a value answered as a blob ID, and the ID; None for a whole value."""
    # The protobuf stubs type WhichOneof as Any: annotated here so what follows is checked.
    kind: str | None = value.WhichOneof("kind")
    if kind == "internal_blob_id_for_obj_value":
        return kind, value.internal_blob_id_for_obj_value
    if kind == "internal_blob_id_for_string_value":
        return kind, value.internal_blob_id_for_string_value
    return None
