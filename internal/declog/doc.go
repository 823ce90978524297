// Package declog is the decision log: one JSON line per warn, block and recovery change,
// appended to repo.StateDir()/decisions.jsonl so a user can see afterwards what an agent was
// stopped from doing (`mbguard status`).
package declog
