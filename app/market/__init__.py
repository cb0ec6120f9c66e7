"""Market data fetched by ticker (Alpha Vantage)."""
