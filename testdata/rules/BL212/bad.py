"""BL212 positives: each marked line changes a compiled module between its calls, and Dynamo
recompiles its forward as often as the marker says, with that guard (torch 2.13)."""
import torch
from torch import nn

X = torch.randn(8, 8)
H = X.half()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)
        self.act = nn.ReLU()
        self.scale = 2.0
        self.use_bias = True

    def forward(self, x):
        y = self.act(self.drop(self.lin(x))) * self.scale
        return y + 1 if self.use_bias else y


net_eval = Net()
net_half = Net()
net_frozen = Net()
net_scaled = Net()
net_swapped = Net()
net_flag = Net()
net_back = Net()
net_back.eval()
m_eval = torch.compile(net_eval)
m_half = torch.compile(net_half)
m_frozen = torch.compile(net_frozen)
m_scaled = torch.compile(net_scaled)
m_swapped = torch.compile(net_swapped)
m_flag = torch.compile(net_flag)
m_back = torch.compile(net_back)
net_twice = Net()
net_static = Net()
m_twice = torch.compile(net_twice)
m_static = torch.compile(net_static, dynamic=False)
CALLS = {name: [] for name in ("m_eval", "m_half", "m_frozen", "m_scaled", "m_swapped", "m_flag", "m_back",
                               "m_twice", "m_static")}


def scenario_train_then_eval():
    m_eval(X)
    net_eval.eval()  # expect: BL212 recompiles=1 guard=".training == True"
    m_eval(X)


def scenario_half():
    m_half(X)
    m_half.half()  # expect: BL212 recompiles=1 guard="dtype mismatch"
    m_half(H)


def scenario_freeze_a_weight():
    m_frozen(X)
    net_frozen.lin.weight.requires_grad_(False)  # expect: BL212 recompiles=1 guard="requires_grad mismatch"
    m_frozen(X)


def scenario_attribute_changes():
    m_scaled(X)
    net_scaled.scale = 3.0  # expect: BL212 recompiles=1 guard="self.scale == 2.0"
    m_scaled(X)


def scenario_submodule_replaced():
    m_swapped(X)
    net_swapped.act = nn.Tanh()  # expect: BL212 recompiles=1 guard="___check_type_id(self._modules['act']"
    m_swapped(X)


def scenario_flag_attribute():
    m_flag(X)
    net_flag.use_bias = False  # expect: BL212 recompiles=1 guard="self.use_bias == True"
    m_flag(X)


def scenario_back_to_training():
    m_back(X)
    net_back.train()  # expect: BL212 recompiles=1 guard=".training == False"
    m_back(X)


def scenario_rebound_in_a_script():
    model = Net()
    model = torch.compile(model)
    for _ in range(2):
        model.train()
        model(X).sum().backward()
        model.eval()  # expect: BL212 recompiles=1 guard=".training == True"
        model(X)


def scenario_float_written_twice():
    m_twice(X)
    net_twice.scale = 3.0  # expect: BL212 recompiles=1 guard="self.scale == 2.0"
    m_twice(X)
    net_twice.scale = 4.0  # dynamic since the first change: nothing to compile again
    m_twice(X)


def scenario_float_per_value_under_dynamic_false():
    m_static(X)
    net_static.scale = 3.0  # expect: BL212 recompiles=2 guard="self.scale == 2.0"
    m_static(X)
    net_static.scale = 4.0
    m_static(X)
