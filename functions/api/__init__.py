"""REST entry point: Powertools `APIGatewayRestResolver`, one router module per resource."""
