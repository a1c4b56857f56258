package resolve

// ResetLinkCache empties the cache of what links need of each version, so
// that a test opening many damaged copies of one store reads each afresh,
// as a new process would.
func ResetLinkCache() {
	infoCache.Lock()
	infoCache.m, infoCache.size = nil, 0
	infoCache.Unlock()
}
