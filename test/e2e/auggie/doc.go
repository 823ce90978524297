// Package auggie drives the real Augment Auggie CLI (@augmentcode/auggie, pinned in test/hosts)
// headless with `auggie --print` against the shared fake model speaking Augment's own API
// (fakemodel.Augment), logged in with a made-up session whose tenant URL is the fake, with
// mbguard's hooks and rule file written by `mbguard install --agent auggie`.
package auggie
