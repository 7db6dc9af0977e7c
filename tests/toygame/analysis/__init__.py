"""The toy race's analytics (``GAME.report_sections`` names them): its report sections, at the analytics layer."""
