"""Model plumbing shared by every node: structured calls with retries and fallbacks (`chat`),
context windows and prompt fitting (`window`), the response cache (`cache`), grounded decoding
(`decoding`), scripted fake models for tests and demos (`fake`) and injected faults (`faults`)."""
