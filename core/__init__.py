"""What graphs and nodes share: contract, state, run context, transcript parsing, RAG."""
