// Package plugins is the root of msched's kube-scheduler framework
// plugins. Each family lives in its own package:
//
//   - plugins/ogasched: OGASched (online gradient ascent, paper 000) and
//     DRF as Score plugins;
//   - plugins/esdp: ESDP (PreScore and Score, outcomes through informers);
//   - plugins/onsocmax: OnSocMax (PreEnqueue and Reserve);
//   - plugins/ocorp: OCORP (QueueSort, PreFilter and PostFilter);
//   - plugins/gang: gangs (PreFilter, Permit, Reserve, PostBind);
//   - plugins/gpushare: GPUs as devices (GPUShare: per-GPU Filter, GPU ids
//     at Reserve, recorded on the pod) and FGD's comparison scorers,
//     shared by every profile of the OpenB comparison.
//
// The root keeps only what the plugins share; the learned-state store
// (ConfigMap or file, the claims that refuse a shared object) is
// plugins/internal/statestore.
package plugins
