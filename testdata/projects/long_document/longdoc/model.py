from torch import nn

from .attention import GlobalLocalAttention


class LongDocumentClassifier(nn.Module):
    def __init__(self, vocab_size=50, dim=8, num_labels=3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim)
        self.attention = GlobalLocalAttention(dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask, global_attention_mask):
        hidden_states = self.embeddings(input_ids)
        pooled = self.attention(hidden_states, attention_mask, global_attention_mask)
        return self.classifier(pooled)
