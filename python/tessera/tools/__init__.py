"""Host-side tools: ``tessera.tools.tensor_descriptor.TensorDescriptor``
(``triton.tools.tensor_descriptor`` through the import alias)."""
