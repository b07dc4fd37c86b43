"""BL111 positives: each marked line must graph-break (or skip its frame) under real Dynamo."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 8)
        self.rnn = nn.LSTM(8, 8, batch_first=True)

    def forward(self, x):
        h = self.embed(x).unsqueeze(0)
        out, _ = self.rnn(h)  # expect: BL111
        return out.squeeze(0)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 8)

    def forward(self, x):
        out, hidden = self.gru(x.unsqueeze(1))  # expect: BL111
        return out.squeeze(1)


RECURRENT = nn.RNN(8, 8)


@torch.compile
def run_rnn(x):
    out, _ = RECURRENT(x.unsqueeze(1))  # expect: BL111
    return out.sum(1)


encoder = torch.compile(Encoder())
decoder = torch.compile(Decoder())


# timm-style: each block receives its token mixer and MLP as classes (`rnn_layer=`,
# `mlp_layer=`), by default and through the stage that builds the blocks.
class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class LSTMMixer(nn.Module):
    def __init__(self, dim, hidden_size):
        super().__init__()
        self.rnn = nn.LSTM(dim, hidden_size, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden_size, dim)

    def forward(self, x):
        out, _ = self.rnn(x)  # expect: BL111
        return self.fc(out)


class MixerBlock(nn.Module):
    def __init__(self, dim, hidden_size, rnn_layer=LSTMMixer, mlp_layer=Mlp, norm_layer=nn.LayerNorm):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.rnn_tokens = rnn_layer(dim, hidden_size)
        self.norm2 = norm_layer(dim)
        self.mlp_channels = mlp_layer(dim, 2 * dim)

    def forward(self, x):
        x = x + self.rnn_tokens(self.norm1(x))
        return x + self.mlp_channels(self.norm2(x))


class MixerStage(nn.Module):
    def __init__(self, dim, depth, block_layer=MixerBlock, rnn_layer=LSTMMixer):
        super().__init__()
        blocks = [block_layer(dim, dim // 2, rnn_layer=rnn_layer) for _ in range(depth)]
        self.blocks = nn.Sequential(*blocks)

    def forward(self, x):
        return self.blocks(x.unsqueeze(0)).squeeze(0)


stage = torch.compile(MixerStage(8, depth=2))


# timm's Sequencer: the base class's forward calls `self.rnn_v`, an identity there; the LSTM
# subclass replaces it (under the same test) and each block is given that subclass as a class.
class RNNIdentity(nn.Module):
    def forward(self, x):
        return x, None


class RNN2dBase(nn.Module):
    def __init__(self, dim, hidden_size, union="cat"):
        super().__init__()
        self.with_vertical = union != "horizontal"
        self.rnn_v = RNNIdentity()
        self.fc = nn.Linear(2 * hidden_size, dim)

    def forward(self, x):
        if self.with_vertical:
            x, _ = self.rnn_v(x)  # expect: BL111
        return self.fc(x)


class LSTM2d(RNN2dBase):
    def __init__(self, dim, hidden_size, union="cat"):
        super().__init__(dim, hidden_size, union)
        if self.with_vertical:
            self.rnn_v = nn.LSTM(dim, hidden_size, batch_first=True, bidirectional=True)


class SequencerBlock(nn.Module):
    def __init__(self, dim, hidden_size, rnn_layer=LSTM2d):
        super().__init__()
        self.rnn_tokens = rnn_layer(dim, hidden_size)

    def forward(self, x):
        return x + self.rnn_tokens(x.unsqueeze(0)).squeeze(0)


sequencer = torch.compile(SequencerBlock(8, 4))


class Readout(nn.Module):
    # Sizes its initial state from the LSTM before calling it (PyG's Set2Set): Dynamo refuses the
    # module where the frame first touches it, the attribute read, not the call.
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 8)

    def forward(self, x):
        h = (x.new_zeros(self.lstm.num_layers, 1, 8),  # expect: BL111
             x.new_zeros(self.lstm.num_layers, 1, 8))
        query = x.new_zeros(1, 1, 16)
        q, h = self.lstm(query, h)
        return x + q.sum()


readout = torch.compile(Readout())
