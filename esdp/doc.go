// Package esdp implements ESDP (Efficient Sampling-based Dynamic
// Programming).
package esdp
