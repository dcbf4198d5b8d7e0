// Package storetest is a fake API server for the state-store tests: a
// client-go fake clientset whose ConfigMaps get resourceVersions and whose
// updates honour the resourceVersion precondition, as the API server's do
// (the plain fake ignores both), with scripted failures of reads.
package storetest

import (
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

var gvr = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// Server is the fake: Clientset serves ConfigMaps; Fail scripts the
// errors of the next ConfigMap reads.
type Server struct {
	Clientset *clientsetfake.Clientset

	mu    sync.Mutex
	rv    int
	fails []error
	gets  int
}

// New returns a fake holding cms (each given a resourceVersion).
func New(cms ...*v1.ConfigMap) *Server {
	s := &Server{Clientset: clientsetfake.NewClientset(), rv: 100}
	tr := s.Clientset.Tracker()
	for _, cm := range cms {
		c := cm.DeepCopy()
		c.ResourceVersion = s.next()
		if err := tr.Create(gvr, c, c.Namespace); err != nil {
			panic(err)
		}
	}
	s.Clientset.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.gets++
		if len(s.fails) > 0 {
			err := s.fails[0]
			s.fails = s.fails[1:]
			return true, nil, err
		}
		return false, nil, nil
	})
	s.Clientset.PrependReactor("create", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		cm := a.(k8stesting.CreateAction).GetObject().(*v1.ConfigMap).DeepCopy()
		cm.ResourceVersion = s.next()
		if err := tr.Create(gvr, cm, cm.Namespace); err != nil {
			return true, nil, err
		}
		return true, cm, nil
	})
	s.Clientset.PrependReactor("update", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		cm := a.(k8stesting.UpdateAction).GetObject().(*v1.ConfigMap).DeepCopy()
		cur, err := tr.Get(gvr, cm.Namespace, cm.Name)
		if err != nil {
			return true, nil, err
		}
		if cm.ResourceVersion != "" && cm.ResourceVersion != cur.(*v1.ConfigMap).ResourceVersion {
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), cm.Name, nil)
		}
		cm.ResourceVersion = s.next()
		if err := tr.Update(gvr, cm, cm.Namespace); err != nil {
			return true, nil, err
		}
		return true, cm, nil
	})
	return s
}

func (s *Server) next() string { s.rv++; return strconv.Itoa(s.rv) }

// Fail makes the next len(errs) ConfigMap reads fail with errs, in order.
func (s *Server) Fail(errs ...error) {
	s.mu.Lock()
	s.fails = append(s.fails, errs...)
	s.mu.Unlock()
}

// Gets returns the number of ConfigMap reads so far.
func (s *Server) Gets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// Pending returns how many scripted failures are left.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fails)
}
