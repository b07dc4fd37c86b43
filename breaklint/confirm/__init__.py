"""Runtime confirmation: run code under torch.compile and record what Dynamo does."""
