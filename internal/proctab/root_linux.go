package proctab

// procRoot is where Linux shows the process table.
const procRoot = "/proc"
