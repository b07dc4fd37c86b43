"""Trains the recogniser for a few steps and decodes one batch."""
import torch

from tinyasr import ASRModel, greedy_decode, log_spectrogram

ALPHABET = "_abcde"


def main(steps=2):
    torch.manual_seed(0)
    model = ASRModel()
    compiled = torch.compile(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        feats = log_spectrogram(torch.randn(2, 400) * 2)
        lengths = torch.tensor([feats.shape[1], feats.shape[1] - 3])
        targets = torch.randint(1, 6, (2, 5))
        loss = compiled(feats, lengths, targets, torch.tensor([5, 4]))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        feats = log_spectrogram(torch.randn(2, 400))
        log_probs = compiled(feats, torch.tensor([feats.shape[1]] * 2))  # expect: BL204, BL211
    return greedy_decode(log_probs, ALPHABET)


if __name__ == "__main__":
    main()
