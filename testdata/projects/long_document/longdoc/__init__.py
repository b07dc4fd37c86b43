from .model import LongDocumentClassifier

__all__ = ["LongDocumentClassifier"]
