"""Model providers: the one model factory (chat models per role, embeddings) and the local
llama.cpp server."""
