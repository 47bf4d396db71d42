package main

import "strconv"

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func uitoa(v uint64) string { return strconv.FormatUint(v, 10) }
