# plugins: each a separately built .so
