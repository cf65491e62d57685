"""PDF -> text blocks with layout: the text layer, OCR where there is none."""
