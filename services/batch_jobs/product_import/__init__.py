"""The product-import batch job: CSV rows, planning and writing chunks."""
