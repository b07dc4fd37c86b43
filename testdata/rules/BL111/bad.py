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
