"""Run torch_geometric (PyG 2.8.1) models through real Dynamo (backend eager, CPU); write breaks as JSON.

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/pyg_run.py OUT.json [CASE ...]

Modelled on torchvision_run.py: each model is built with random weights on
tiny random graphs, compiled whole with torch.compile(model, backend="eager"), called in eval under
no_grad, then in train mode, then in train mode on a second graph of another size (as a GNN is fed
graphs of varying size). Graph breaks come from Dynamo's own logs (breaklint.confirm.capture).
OUT.json is updated after every case, so a run cut short keeps what it measured.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
import traceback
from pathlib import Path

import torch
import torch_geometric
from torch import nn
from torch_geometric import nn as G
from torch_geometric.nn import models as PM
from torch_geometric.utils import degree, to_dense_batch
from breaklint.confirm.capture import capture_dynamo

F_IN, HID, OUT = 8, 16, 4


def graph(n_per=(10, 10), e_per=(30, 30), seed=0, edge_dim=None):
    """A batch of small random graphs: x, edge_index, batch (and edge_attr)."""
    g = torch.Generator().manual_seed(seed)
    xs, eis, bs, off = [], [], [], 0
    for i, (n, e) in enumerate(zip(n_per, e_per)):
        src = torch.randint(0, n, (e,), generator=g); dst = (src + torch.randint(1, n, (e,), generator=g)) % n
        eis.append(torch.stack([src, dst]) + off); bs.append(torch.full((n,), i, dtype=torch.long))
        xs.append(torch.randn(n, F_IN, generator=g)); off += n
    x, ei, b = torch.cat(xs), torch.cat(eis, 1), torch.cat(bs)
    ea = torch.randn(ei.size(1), edge_dim, generator=g) if edge_dim else None
    return x, ei, b, ea


G1 = dict(n_per=(10, 10), e_per=(30, 30), seed=0)
G2 = dict(n_per=(12, 9, 7), e_per=(36, 25, 20), seed=1)


# ---- user-side wrappers (this file is not scored; only torch_geometric/ is) ----

class ConvPool(nn.Module):
    """conv -> relu -> conv -> global pooling -> linear: the graph-classification pattern."""

    def __init__(self, conv, pool, edge=False, pool_out=HID):
        super().__init__()
        self.c1, self.c2, self.pool, self.edge = conv(F_IN, HID), conv(HID, HID), pool, edge
        self.lin = nn.Linear(pool_out, OUT)

    def forward(self, x, edge_index, batch, edge_attr=None):
        extra = (edge_attr,) if self.edge else ()
        x = self.c1(x, edge_index, *extra).relu()
        x = self.c2(x, edge_index, *extra).relu()
        return self.lin(self.pool(x, batch))


class DenseBatch(nn.Module):
    """GATConv then to_dense_batch (padding to [B, N_max, F]) then a transformer layer."""

    def __init__(self):
        super().__init__()
        self.conv = G.GATConv(F_IN, HID, heads=2, concat=False)
        self.att = nn.MultiheadAttention(HID, 2, batch_first=True)

    def forward(self, x, edge_index, batch):
        x = self.conv(x, edge_index).relu()
        h, mask = to_dense_batch(x, batch)
        h, _ = self.att(h, h, h, key_padding_mask=~mask)
        return h[mask]


class PoolNet(nn.Module):
    """The PyG TopKPooling / SAGPooling graph-classification example (GraphConv + pool + readout)."""

    def __init__(self, pool_cls):
        super().__init__()
        self.c1, self.p1 = G.GraphConv(F_IN, HID), pool_cls(HID, ratio=0.8)
        self.c2, self.p2 = G.GraphConv(HID, HID), pool_cls(HID, ratio=0.8)
        self.lin = nn.Linear(2 * HID, OUT)

    def forward(self, x, edge_index, batch):
        x = self.c1(x, edge_index).relu()
        x, edge_index, _, batch, _, _ = self.p1(x, edge_index, None, batch)
        x1 = torch.cat([G.global_max_pool(x, batch), G.global_mean_pool(x, batch)], dim=1)
        x = self.c2(x, edge_index).relu()
        x, edge_index, _, batch, _, _ = self.p2(x, edge_index, None, batch)
        x2 = torch.cat([G.global_max_pool(x, batch), G.global_mean_pool(x, batch)], dim=1)
        return self.lin(x1 + x2)


class APPNPNet(nn.Module):
    """Linear -> APPNP propagation (K steps of personalized PageRank)."""

    def __init__(self):
        super().__init__()
        self.lin, self.prop = nn.Linear(F_IN, OUT), G.APPNP(K=3, alpha=0.1)

    def forward(self, x, edge_index):
        return self.prop(self.lin(x), edge_index)


class DeepGCN(nn.Module):
    """The ogbn-proteins DeeperGCN pattern: GENConv inside DeepGCNLayer (res+)."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(F_IN, HID)
        self.layers = nn.ModuleList(
            G.DeepGCNLayer(G.GENConv(HID, HID, aggr="softmax", t=1.0, learn_t=True, num_layers=2, norm="layer"),
                           nn.LayerNorm(HID), nn.ReLU(), block="res+", dropout=0.1) for _ in range(2))
        self.lin = nn.Linear(HID, OUT)

    def forward(self, x, edge_index):
        x = self.layers[0].conv(self.enc(x), edge_index)
        for layer in self.layers[1:]:
            x = layer(x, edge_index)
        return self.lin(x)


def dense_radius(pos, batch, cutoff=10.0):
    """A pure-torch interaction graph for SchNet (radius_graph needs pyg-lib, not installed)."""
    d = torch.cdist(pos, pos)
    same = batch.view(-1, 1) == batch.view(1, -1)
    adj = (d < cutoff) & same & ~torch.eye(pos.size(0), dtype=torch.bool)
    edge_index = adj.nonzero().t()
    return edge_index, d[edge_index[0], edge_index[1]]


def pna():
    _, ei, _, _ = graph(**G1)
    deg = degree(ei[1], num_nodes=20, dtype=torch.long)
    hist = torch.bincount(deg, minlength=8)
    return PM.PNA(F_IN, HID, num_layers=2, out_channels=OUT, aggregators=["mean", "min", "max", "std"],
                  scalers=["identity", "amplification", "attenuation"], deg=hist)


# name -> (builder, argument kind)
BASIC = {
    "models/GCN": (lambda: PM.GCN(F_IN, HID, num_layers=2, out_channels=OUT), "node"),
    "models/GraphSAGE": (lambda: PM.GraphSAGE(F_IN, HID, num_layers=2, out_channels=OUT), "node"),
    "models/GAT": (lambda: PM.GAT(F_IN, HID, num_layers=2, out_channels=OUT, heads=2), "node"),
    "models/GATv2": (lambda: PM.GAT(F_IN, HID, num_layers=2, out_channels=OUT, heads=2, v2=True), "node"),
    "models/GIN": (lambda: PM.GIN(F_IN, HID, num_layers=2, out_channels=OUT), "node"),
    "models/PNA": (pna, "node"),
    "models/EdgeCNN": (lambda: PM.EdgeCNN(F_IN, HID, num_layers=2, out_channels=OUT), "node"),
    "models/GraphUNet": (lambda: PM.GraphUNet(F_IN, HID, OUT, depth=2, pool_ratios=0.5), "node_batch"),
    "models/AttentiveFP": (lambda: PM.AttentiveFP(F_IN, HID, OUT, edge_dim=4, num_layers=2, num_timesteps=2),
                           "afp"),
    "models/SchNet": (lambda: PM.SchNet(hidden_channels=16, num_filters=16, num_interactions=2, num_gaussians=10,
                                        interaction_graph=dense_radius), "schnet"),
    "layers/GCNConv+global_mean_pool": (lambda: ConvPool(G.GCNConv, G.global_mean_pool), "batch"),
    "layers/SAGEConv+global_max_pool": (lambda: ConvPool(G.SAGEConv, G.global_max_pool), "batch"),
    "layers/TransformerConv+global_add_pool": (
        lambda: ConvPool(lambda i, o: G.TransformerConv(i, o, heads=2, concat=False, edge_dim=4), G.global_add_pool,
                         edge=True), "edge_batch"),
    "layers/GINEConv+AttentionalAggregation": (
        lambda: ConvPool(lambda i, o: G.GINEConv(nn.Sequential(nn.Linear(i, o), nn.ReLU(), nn.Linear(o, o)),
                                                 edge_dim=4),
                         G.aggr.AttentionalAggregation(nn.Linear(HID, 1)), edge=True), "edge_batch"),
    "layers/GATConv+to_dense_batch": (DenseBatch, "batch"),
    "layers/ChebConv+Set2Set": (lambda: ConvPool(lambda i, o: G.ChebConv(i, o, K=3), G.aggr.Set2Set(HID, 2),
                                                 pool_out=2 * HID), "batch"),
    "layers/GraphConv+SortAggregation": (lambda: ConvPool(G.GraphConv, G.aggr.SortAggregation(k=5),
                                                          pool_out=5 * HID), "batch"),
    "layers/APPNP": (APPNPNet, "node"),
    "layers/DeepGCNLayer+GENConv": (DeepGCN, "node"),
    "layers/TopKPooling": (lambda: PoolNet(G.TopKPooling), "batch"),
    "layers/SAGPooling": (lambda: PoolNet(G.SAGPooling), "batch"),
}


def args_for(kind, spec):
    x, ei, b, ea = graph(**spec, edge_dim=4 if kind in ("edge_batch", "afp") else None)
    if kind == "node":
        return (x, ei)
    if kind == "node_batch":
        return (x, ei, b)
    if kind == "batch":
        return (x, ei, b)
    if kind == "edge_batch":
        return (x, ei, b, ea)
    if kind == "afp":  # AttentiveFP.forward(x, edge_index, edge_attr, batch)
        return (x, ei, ea, b)
    if kind == "schnet":
        g = torch.Generator().manual_seed(7)
        return (torch.randint(1, 10, (x.size(0),), generator=g), torch.randn(x.size(0), 3, generator=g) * 2, b)
    raise ValueError(kind)


def case(name):
    build, kind = BASIC[name]

    def go():
        model = build(); c = torch.compile(model, backend="eager")
        model.eval()
        with torch.no_grad():
            c(*args_for(kind, G1))
        model.train(); c(*args_for(kind, G1))
        c(*args_for(kind, G2))
    return go


def run(fn):
    torch._dynamo.reset(); torch.manual_seed(0)
    error = None
    with capture_dynamo() as capture:
        try:
            fn()
        except Exception as exc:
            error = "".join(traceback.format_exception_only(exc)).strip()[-2000:]
    return {"graph_breaks": [_kept(dataclasses.asdict(b)) for b in capture.graph_breaks],
            "recompiles": len(capture.recompiles), "graphs": capture.graphs_compiled, "error": error}


SITE = Path(torch_geometric.__file__).resolve().parents[1]
KEPT = ("filename", "lineno", "gb_type", "gb_id", "frame_skipped", "rest_skipped")


def _rel(filename):
    path = Path(filename).resolve() if filename and not filename.startswith("<") else None
    return path.relative_to(SITE).as_posix() if path is not None and path.is_relative_to(SITE) else filename


def _kept(event: dict) -> dict:
    """What the scoring reads (file relative to the site), plus the user stack and reason for the analysis."""
    event["filename"] = _rel(event["filename"])
    out = {key: event[key] for key in KEPT}
    out["frames"] = [[_rel(f), ln] for f, ln in event.get("frames", ()) if "/site-packages/torch/" not in f]
    out["reason"] = event["reason"][:600]
    return out


CASES = {n: case(n) for n in BASIC}

if __name__ == "__main__":
    out = Path(sys.argv[1]); names = sys.argv[2:] or list(CASES)
    results = json.loads(out.read_text()) if out.exists() else {}
    for n in names:
        t0 = time.time()
        results[n] = run(CASES[n])
        r = results[n]; r["seconds"] = round(time.time() - t0, 1)
        print(n, f"{r['seconds']}s", "graphs", r["graphs"], "breaks",
              len({(b["filename"], b["lineno"]) for b in r["graph_breaks"]}), "err", (r["error"] or "")[:200],
              flush=True)
        out.write_text(json.dumps(results, indent=1))
