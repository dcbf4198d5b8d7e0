package openb

import (
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

func testLogger(t *testing.T) klog.Logger {
	logger, _ := ktesting.NewTestContext(t)
	return logger
}
