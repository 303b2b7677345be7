// interp placeholder
