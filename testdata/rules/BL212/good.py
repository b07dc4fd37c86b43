"""BL212 negatives: the module is configured before its first call, or the change is not guarded."""
import torch
from torch import nn

X = torch.randn(8, 8)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)
        self.act = nn.ReLU()
        self.scale = 2.0

    def forward(self, x):
        return self.act(self.drop(self.lin(x))) * self.scale


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(x)


net_early = Net()
net_same = Net()
net_plain = Plain()
m_early = torch.compile(net_early)
m_same = torch.compile(net_same)
m_plain = torch.compile(net_plain)
net_dynamic = Net()
m_dynamic = torch.compile(net_dynamic, dynamic=True)
CALLS = {name: [] for name in ("m_early", "m_same", "m_plain", "m_dynamic")}


def scenario_configured_first():
    net_early.eval()
    net_early.scale = 3.0
    m_early(X)
    m_early(X)


def scenario_same_type_and_value():
    m_same(X)
    net_same.act = nn.ReLU()
    net_same.scale = 2.0
    m_same(X)


def scenario_nothing_reads_training():
    m_plain(X)
    net_plain.eval()
    m_plain(X)


def scenario_train_when_training():
    m_plain(X)
    net_early.train()  # not the compiled module called here, and m_plain's forward reads no training flag
    net_plain.train()
    m_plain(X)


def scenario_float_under_dynamic_true():
    m_dynamic(X)
    net_dynamic.scale = 3.0  # dynamic=True: a float attribute is a symbol from the first call
    m_dynamic(X)
    net_dynamic.scale = 4.0
    m_dynamic(X)
