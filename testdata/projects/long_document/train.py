"""Fine-tunes the long-document classifier for a few steps, the first token of each document
attending globally."""
import torch
import torch.nn.functional as F

from longdoc import LongDocumentClassifier


def batch(size=2, length=16):
    input_ids = torch.randint(0, 50, (size, length))
    attention_mask = torch.ones(size, length, dtype=torch.long)
    global_attention_mask = torch.zeros(size, length, dtype=torch.long)
    global_attention_mask[:, 0] = 1
    return input_ids, attention_mask, global_attention_mask


def main(steps=2):
    torch.manual_seed(0)
    model = LongDocumentClassifier()
    compiled = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(steps):
        logits = compiled(*batch())
        loss = F.cross_entropy(logits, torch.tensor([0, 2]))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        return compiled(*batch()).argmax(dim=-1)  # expect: BL204


if __name__ == "__main__":
    main()
